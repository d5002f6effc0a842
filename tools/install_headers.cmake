# Run at build time (tools/install.cmake): copies the public headers of sim/,
# fakes/, models/ and scenarios/ to ${FAULTLINE_INCLUDE_DIR}/<layer>/...,
# rewriting `#include "sim/x.h"` (and the other layers') to
# `#include "faultline/sim/x.h"`, so an installed header finds its
# neighbours with nothing but include/ on the path.
#
# A header whose opening comment says "(internal to ...)" is a part's own
# (the file reader's Reader, the steps' Perform* functions, ...): it is not
# installed, and a public header that includes one is an error here, so the
# package never names a header it lacks.
set(layers sim fakes models scenarios)
set(internal_headers "")
set(public_headers "")
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE headers RELATIVE "${FAULTLINE_SOURCE_DIR}" "${FAULTLINE_SOURCE_DIR}/${layer}/*.h")
  foreach(header IN LISTS headers)
    file(STRINGS "${FAULTLINE_SOURCE_DIR}/${header}" opening LIMIT_COUNT 3)
    if(opening MATCHES "\\(internal to ")
      list(APPEND internal_headers "${header}")
    else()
      list(APPEND public_headers "${header}")
    endif()
  endforeach()
endforeach()

foreach(header IN LISTS public_headers)
  file(READ "${FAULTLINE_SOURCE_DIR}/${header}" text)
  foreach(internal IN LISTS internal_headers)
    string(FIND "${text}" "include \"${internal}\"" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${header} is installed but includes ${internal}, which says it is "
                          "internal: include it from a .cc file, or make it public")
    endif()
  endforeach()
  # Any spelling of an include of a layer: #include "sim/...", <sim/...>,
  # "#  include" inside a conditional.
  string(REGEX REPLACE "(#[ \t]*include[ \t]*[<\"])(sim|fakes|models|scenarios)/"
         "\\1faultline/\\2/" text "${text}")
  file(WRITE "${FAULTLINE_INCLUDE_DIR}/${header}" "${text}")
endforeach()
