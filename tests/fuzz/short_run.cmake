# A short run of each fuzz target (targets.cmake) as a CTest test (label
# "fuzz"), for builds with GCC: each fuzzer is compiled by clang, found on
# the PATH, from pure sources. CI runs each for FAULTLINE_FUZZ_SECONDS; a
# crash, leak, UB report or hang fails it.
find_program(FAULTLINE_CLANGXX NAMES clang++ clang++-14)
if(NOT FAULTLINE_CLANGXX)
  message(STATUS "clang++ not found: the short fuzz runs (tests fuzz.*) are not built")
  return()
endif()

set(FAULTLINE_FUZZ_SECONDS 30 CACHE STRING "Seconds of each short fuzz run in the test suite")
include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)
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
    COMMAND ${FAULTLINE_CCACHE} ${FAULTLINE_CLANGXX} -std=c++20 -O1 -g
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -I${PROJECT_SOURCE_DIR} ${sources} -lfmt -o ${fuzzer}
    DEPENDS ${sources} ${fuzz_headers}
    COMMENT "Building the fuzzer ${target} with clang"
    VERBATIM)
  add_custom_target(${target}_clang ALL DEPENDS ${fuzzer})
  string(REGEX REPLACE "_fuzz$" "" name ${target})
  set(dict "")
  if(${target}_DICT)
    set(dict "-dict=${PROJECT_SOURCE_DIR}/${${target}_DICT}")
  endif()
  # New inputs go to a scratch corpus in the build tree; the seeds stay as they are.
  add_test(NAME fuzz.${name}
    COMMAND sh -c "rm -rf corpus-$4 && mkdir corpus-$4 && exec \"$1\" $5 -max_total_time=$2 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus-$4 \"$3\""
            sh ${fuzzer} ${FAULTLINE_FUZZ_SECONDS} ${PROJECT_SOURCE_DIR}/${${target}_CORPUS} ${name} "${dict}"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 600)
endforeach()

# The targets over the whole simulator need every library built by clang,
# instrumented and sanitized: a build of this project of its own, with the
# fuzz settings, under this build tree (configured and built with it; its
# ninja rebuilds only what changed). Each then gets a short run too.
if(FAULTLINE_SANITIZE)
  return()  # A sanitizer build of the suite is no place for a second build of the project.
endif()
include(ExternalProject)
set(fuzz_tree ${CMAKE_BINARY_DIR}/fuzz-clang)
set(library_fuzzers "")
foreach(target ${FAULTLINE_FUZZ_LIBRARY_TARGETS})
  list(APPEND library_fuzzers ${fuzz_tree}/tests/fuzz/${target})
endforeach()
ExternalProject_Add(faultline_fuzz_clang
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${fuzz_tree}
  CMAKE_GENERATOR Ninja
  CMAKE_ARGS -DCMAKE_CXX_COMPILER=${FAULTLINE_CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
             -DFAULTLINE_FUZZ=ON -DFAULTLINE_BUILD_TESTS=OFF -DFAULTLINE_BUILD_BENCH=OFF
  BUILD_COMMAND ${CMAKE_COMMAND} --build ${fuzz_tree} --target ${FAULTLINE_FUZZ_LIBRARY_TARGETS}
  BUILD_BYPRODUCTS ${library_fuzzers}
  BUILD_ALWAYS ON
  INSTALL_COMMAND "")
foreach(target ${FAULTLINE_FUZZ_LIBRARY_TARGETS})
  string(REGEX REPLACE "_fuzz$" "" name ${target})
  add_test(NAME fuzz.${name}
    COMMAND sh -c "rm -rf corpus-$4 && mkdir corpus-$4 && exec \"$1\" -dict=$5 -max_total_time=$2 -max_len=8192 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 corpus-$4 \"$3\""
            sh ${fuzz_tree}/tests/fuzz/${target} ${FAULTLINE_FUZZ_SECONDS}
            ${PROJECT_SOURCE_DIR}/${${target}_CORPUS} ${name} ${PROJECT_SOURCE_DIR}/${${target}_DICT}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 600)
endforeach()
