# Run at build time (tools/install.cmake): copies every header of sim/, fakes/, models/ and
# scenarios/ to ${FAULTLINE_INCLUDE_DIR}/<layer>/..., rewriting
# `#include "sim/x.h"` (and the other layers') to
# `#include "faultline/sim/x.h"`, so an installed header finds its
# neighbours with nothing but include/ on the path.
set(layers sim fakes models scenarios)
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE headers RELATIVE "${FAULTLINE_SOURCE_DIR}" "${FAULTLINE_SOURCE_DIR}/${layer}/*.h")
  foreach(header IN LISTS headers)
    file(READ "${FAULTLINE_SOURCE_DIR}/${header}" text)
    # Any spelling of an include of a layer: #include "sim/...", <sim/...>,
    # "#  include" inside a conditional.
    string(REGEX REPLACE "(#[ \t]*include[ \t]*[<\"])(sim|fakes|models|scenarios)/"
           "\\1faultline/\\2/" text "${text}")
    file(WRITE "${FAULTLINE_INCLUDE_DIR}/${header}" "${text}")
  endforeach()
endforeach()
