# A short fuzz run of the CQL parser as a CTest test (label "fuzz"), for
# builds with GCC: the fuzzer is compiled by clang, found on the PATH, from
# the parser's own sources (they need nothing of the simulator). CI runs it
# for FAULTLINE_FUZZ_SECONDS; a crash, leak, UB report or hang fails it.
find_program(FAULTLINE_CLANGXX NAMES clang++ clang++-14)
if(NOT FAULTLINE_CLANGXX)
  message(STATUS "clang++ not found: the short fuzz run (test fuzz.cql_parser) is not built")
  return()
endif()

set(FAULTLINE_FUZZ_SECONDS 30 CACHE STRING "Seconds of the short fuzz run in the test suite")
set(fuzzer ${CMAKE_CURRENT_BINARY_DIR}/cql_parser_fuzz)
set(fuzz_sources
  ${PROJECT_SOURCE_DIR}/tests/fuzz/cql_parser_fuzz.cc
  ${PROJECT_SOURCE_DIR}/models/cql/lexer.cc
  ${PROJECT_SOURCE_DIR}/models/cql/parser.cc)
file(GLOB fuzz_headers ${PROJECT_SOURCE_DIR}/models/cql/*.h ${PROJECT_SOURCE_DIR}/sim/status.h)
find_program(FAULTLINE_CCACHE ccache)
add_custom_command(OUTPUT ${fuzzer}
  COMMAND ${FAULTLINE_CCACHE} ${FAULTLINE_CLANGXX} -std=c++20 -O1 -g
          -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -I${PROJECT_SOURCE_DIR} ${fuzz_sources} -lfmt -o ${fuzzer}
  DEPENDS ${fuzz_sources} ${fuzz_headers}
  COMMENT "Building the CQL parser fuzzer with clang"
  VERBATIM)
add_custom_target(cql_parser_fuzz_clang ALL DEPENDS ${fuzzer})

# New inputs go to a scratch corpus in the build tree; the seeds stay as they are.
add_test(NAME fuzz.cql_parser
  COMMAND sh -c "rm -rf corpus && mkdir corpus && exec \"$1\" -max_total_time=$2 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus \"$3\""
          sh ${fuzzer} ${FAULTLINE_FUZZ_SECONDS} ${PROJECT_SOURCE_DIR}/tests/fuzz/cql_corpus
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(fuzz.cql_parser PROPERTIES LABELS fuzz TIMEOUT 600)
