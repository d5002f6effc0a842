# The libFuzzer targets, one entry each: name, then its sources beyond its
# own <name>.cc. The first list is of pure sources, compiled apart from the
# libraries; the second (below) links the simulator's libraries. Both are
# built in a clang tree with FAULTLINE_FUZZ (the fuzz and asan presets).
# CMakeLists.txt and short_run.cmake (the suite's short runs) both read
# these lists.
set(FAULTLINE_FUZZ_TARGETS cql_parser_fuzz migration_lint_fuzz sum_file_fuzz)
set(cql_parser_fuzz_SOURCES
  models/cql/errors.cc
  models/cql/keywords.cc
  models/cql/lexer.cc
  models/cql/parser.cc
  models/cql/parser_ddl.cc
  models/cql/types.cc
  sim/assert.cc)
set(cql_parser_fuzz_CORPUS tests/fuzz/cql_corpus)
set(migration_lint_fuzz_SOURCES
  models/cql/errors.cc
  models/cql/keywords.cc
  models/cql/lexer.cc
  models/cql/parser.cc
  models/cql/parser_ddl.cc
  models/cql/types.cc
  models/migrate/folder.cc
  models/migrate/lint.cc
  models/migrate/lint_schema.cc
  models/migrate/schema_model.cc
  models/migrate/source.cc
  models/migrate/statements.cc
  sim/assert.cc
  sim/status.cc)
set(migration_lint_fuzz_CORPUS tests/fuzz/migration_corpus)
set(migration_lint_fuzz_DICT tests/fuzz/migration_lint.dict)
set(sum_file_fuzz_SOURCES ${migration_lint_fuzz_SOURCES})
set(sum_file_fuzz_CORPUS tests/fuzz/sum_corpus)
set(sum_file_fuzz_DICT tests/fuzz/sum_file.dict)

# Targets over the whole simulator: they link the libraries the fuzz preset
# builds with clang (instrumented, sanitized); so does the asan preset's
# tree, whose suite has their short runs (short_run.cmake).
set(FAULTLINE_FUZZ_LIBRARY_TARGETS scenario_file_fuzz cql_engine_fuzz shard_file_fuzz)
set(scenario_file_fuzz_LIBRARIES faultline_scenarios)
set(scenario_file_fuzz_CORPUS tests/fuzz/scenario_corpus)
set(scenario_file_fuzz_DICT tests/fuzz/scenario_file.dict)
set(cql_engine_fuzz_LIBRARIES faultline_models)
set(cql_engine_fuzz_CORPUS tests/fuzz/cql_engine_corpus)
set(cql_engine_fuzz_DICT tests/fuzz/cql_engine.dict)
set(shard_file_fuzz_LIBRARIES faultline_scenarios)
set(shard_file_fuzz_CORPUS tests/fuzz/shard_corpus)
set(shard_file_fuzz_DICT tests/fuzz/shard_file.dict)
