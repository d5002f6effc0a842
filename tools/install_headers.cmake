# Run by `cmake --install`: copies every header of sim/, fakes/, models/ and
# scenarios/ to ${FAULTLINE_INCLUDE_DIR}/<layer>/..., rewriting
# `#include "sim/x.h"` (and the other layers') to
# `#include "faultline/sim/x.h"`, so an installed header finds its
# neighbours with nothing but include/ on the path.
set(layers sim fakes models scenarios)
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE headers RELATIVE "${FAULTLINE_SOURCE_DIR}" "${FAULTLINE_SOURCE_DIR}/${layer}/*.h")
  foreach(header IN LISTS headers)
    file(READ "${FAULTLINE_SOURCE_DIR}/${header}" text)
    string(REGEX REPLACE "#include \"(sim|fakes|models|scenarios)/" "#include \"faultline/\\1/"
           text "${text}")
    set(destination "${FAULTLINE_INCLUDE_DIR}/${header}")
    message(STATUS "Installing: ${destination}")
    file(WRITE "${destination}" "${text}")
  endforeach()
endforeach()
