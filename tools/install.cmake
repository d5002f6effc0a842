# `cmake --install` for faultline as a library. Consumers write
#   find_package(faultline CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE faultline::faultline)   # or faultline::sim, ...
# or use pkg-config (faultline.pc). They get the libraries and the headers,
# never the tree's warning, -Werror or sanitizer flags.
include(CMakePackageConfigHelpers)

# faultline::faultline: every layer (the harness included).
add_library(faultline_all INTERFACE)
target_link_libraries(faultline_all INTERFACE faultline_scenarios)
set_target_properties(faultline_all PROPERTIES EXPORT_NAME faultline)
set_target_properties(faultline_sim PROPERTIES EXPORT_NAME sim)
set_target_properties(faultline_fakes PROPERTIES EXPORT_NAME fakes)
set_target_properties(faultline_models PROPERTIES EXPORT_NAME models)
set_target_properties(faultline_scenarios PROPERTIES EXPORT_NAME scenarios)
foreach(part harness shrink catalogue explore check_migrations report)
  set_target_properties(faultline_${part} PROPERTIES EXPORT_NAME ${part})
endforeach()

install(TARGETS faultline_sim faultline_fakes faultline_models faultline_harness faultline_shrink
  faultline_catalogue faultline_explore faultline_check_migrations faultline_report
  faultline_scenarios faultline_all
  EXPORT faultlineTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(faultline_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/faultline")
install(EXPORT faultlineTargets NAMESPACE faultline:: DESTINATION "${faultline_cmake_dir}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/tools/faultlineConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/faultlineConfig.cmake" INSTALL_DESTINATION "${faultline_cmake_dir}")
# 0.x: a minor version may change the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/faultlineConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/faultlineConfig.cmake"
  "${PROJECT_BINARY_DIR}/faultlineConfigVersion.cmake" DESTINATION "${faultline_cmake_dir}")

# Relocatable: the prefix is found from the .pc file's own place
# (${pcfiledir}), so `cmake --install --prefix DIR` works wherever DIR is.
file(RELATIVE_PATH faultline_pc_to_prefix "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" faultline_pc_to_prefix "${faultline_pc_to_prefix}")
configure_file("${PROJECT_SOURCE_DIR}/tools/faultline.pc.in" "${PROJECT_BINARY_DIR}/faultline.pc"
  @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/faultline.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# The headers of the four layers, under include/faultline/, with their
# includes of one another rewritten to "faultline/..." so that only
# include/ is on a consumer's path. Written into the build tree at build
# time (so DESTDIR and the install manifest see them), installed from there.
file(GLOB_RECURSE faultline_headers CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/sim/*.h" "${PROJECT_SOURCE_DIR}/fakes/*.h"
  "${PROJECT_SOURCE_DIR}/models/*.h" "${PROJECT_SOURCE_DIR}/scenarios/*.h")
set(faultline_header_dir "${PROJECT_BINARY_DIR}/package-include")
# The list itself is an input: a header deleted or renamed changes it, so
# the rewrite runs again (it starts from an empty directory).
file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/package-headers.txt" CONTENT "${faultline_headers}")
add_custom_command(
  OUTPUT "${faultline_header_dir}/faultline.stamp"
  COMMAND "${CMAKE_COMMAND}" -E rm -rf "${faultline_header_dir}/faultline"
  COMMAND "${CMAKE_COMMAND}" "-DFAULTLINE_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
          "-DFAULTLINE_INCLUDE_DIR=${faultline_header_dir}/faultline"
          -P "${PROJECT_SOURCE_DIR}/tools/install_headers.cmake"
  COMMAND "${CMAKE_COMMAND}" -E touch "${faultline_header_dir}/faultline.stamp"
  DEPENDS ${faultline_headers} "${PROJECT_BINARY_DIR}/package-headers.txt"
          "${PROJECT_SOURCE_DIR}/tools/install_headers.cmake"
  COMMENT "Rewriting the headers for the package"
  VERBATIM)
add_custom_target(faultline_package_headers ALL DEPENDS "${faultline_header_dir}/faultline.stamp")
install(DIRECTORY "${faultline_header_dir}/faultline" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
