# A short run of each fuzz target (targets.cmake) as a CTest test (label
# "fuzz"); a crash, leak, UB report or hang fails it. Each runs for
# FAULTLINE_FUZZ_SECONDS from the corpus in the tree; new inputs go to a
# scratch corpus in the build tree, so the seeds stay as they are.
#  - In a GCC tree (the default preset) the pure targets are compiled by
#    clang, found on the PATH, from their few sources.
#  - The targets over the whole simulator link every library built by clang,
#    instrumented and sanitized: the asan preset's tree (a clang build with
#    FAULTLINE_FUZZ) builds them (tests/fuzz/CMakeLists.txt) and runs them
#    here. .ci/run runs that tree's suite after the default one.
set(FAULTLINE_FUZZ_SECONDS 15 CACHE STRING "Seconds of each short fuzz run in the test suite")
include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)

function(add_fuzz_short_run target fuzzer extra_flags)
  string(REGEX REPLACE "_fuzz$" "" name ${target})
  set(dict "")
  if(${target}_DICT)
    set(dict "-dict=${PROJECT_SOURCE_DIR}/${${target}_DICT}")
  endif()
  add_test(NAME fuzz.${name}
    COMMAND sh -c "rm -rf corpus-$4 && mkdir corpus-$4 && exec \"$1\" $5 $6 -max_total_time=$2 -print_final_stats=1 corpus-$4 \"$3\""
            sh ${fuzzer} ${FAULTLINE_FUZZ_SECONDS} ${PROJECT_SOURCE_DIR}/${${target}_CORPUS} ${name}
            "${dict}" "${extra_flags}"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 600)
endfunction()

if(FAULTLINE_FUZZ)
  foreach(target ${FAULTLINE_FUZZ_LIBRARY_TARGETS})
    add_fuzz_short_run(${target} $<TARGET_FILE:${target}>
                       "-max_len=8192 -timeout=30 -rss_limit_mb=4096")
  endforeach()
  return()
endif()

find_program(FAULTLINE_CLANGXX NAMES clang++ clang++-14)
if(NOT FAULTLINE_CLANGXX)
  message(STATUS "clang++ not found: the short fuzz runs (tests fuzz.*) are not built")
  return()
endif()
find_program(FAULTLINE_CCACHE ccache)
file(GLOB fuzz_headers ${PROJECT_SOURCE_DIR}/models/cql/*.h ${PROJECT_SOURCE_DIR}/models/migrate/*.h
     ${PROJECT_SOURCE_DIR}/sim/*.h)
foreach(target ${FAULTLINE_FUZZ_TARGETS})
  set(fuzzer ${CMAKE_CURRENT_BINARY_DIR}/${target})
  set(sources ${PROJECT_SOURCE_DIR}/tests/fuzz/${target}.cc)
  foreach(source ${${target}_SOURCES})
    list(APPEND sources ${PROJECT_SOURCE_DIR}/${source})
  endforeach()
  add_custom_command(OUTPUT ${fuzzer}
    COMMAND ${FAULTLINE_CCACHE} ${FAULTLINE_CLANGXX} -std=c++20 -O1 -g1
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -I${PROJECT_SOURCE_DIR} ${sources} -lfmt -o ${fuzzer}
    DEPENDS ${sources} ${fuzz_headers}
    COMMENT "Building the fuzzer ${target} with clang"
    VERBATIM)
  add_custom_target(${target}_clang ALL DEPENDS ${fuzzer})
  add_fuzz_short_run(${target} ${fuzzer} "-timeout=10 -rss_limit_mb=2048")
endforeach()
