# A short run of each fuzz target (targets.cmake) as a CTest test (label
# "fuzz"); a crash, leak, UB report or hang fails it. Each runs for
# FAULTLINE_FUZZ_SECONDS from the corpus in the tree; new inputs go to a
# scratch corpus in the build tree, so the seeds stay as they are.
# The targets are built by clang with libFuzzer (FAULTLINE_FUZZ): the asan
# preset's tree builds and runs them all (tests/fuzz/CMakeLists.txt), and
# .ci/run runs that tree's suite after the default one. A GCC tree (the
# default preset) has none: compiling them there with clang beside the
# suite took two minutes of CI's build, for runs the asan tree makes anyway.
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
  foreach(target ${FAULTLINE_FUZZ_TARGETS})
    add_fuzz_short_run(${target} $<TARGET_FILE:${target}> "-timeout=10 -rss_limit_mb=2048")
  endforeach()
  foreach(target ${FAULTLINE_FUZZ_LIBRARY_TARGETS})
    add_fuzz_short_run(${target} $<TARGET_FILE:${target}>
                       "-max_len=8192 -timeout=30 -rss_limit_mb=4096")
  endforeach()
endif()
