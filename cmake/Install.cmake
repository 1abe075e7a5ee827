# cmake --install: the CLI, the kernel compiler wrapper, the HAM program
# wrapper, the headers kernels and host programs compile against (the HAM
# runtime library and its headers: sim/xeonphi), the presets, the shipped kernel
# libraries and the CMake package (find_package(hopsim)).
include(CMakePackageConfigHelpers)
install(TARGETS hopsim RUNTIME DESTINATION bin)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/hopsim-cc ${CMAKE_BINARY_DIR}/install/hopsim-c++ DESTINATION bin)
install(FILES sim/epiphany/api/e_lib.h sim/epiphany/api/stdcl.h sim/epiphany/api/coreid16.h
  DESTINATION include/hopsim/device-api)
install(FILES sim/epiphany/api/hopsim/ocl_kernel.h sim/epiphany/api/hopsim/epiphany_host.hpp
  sim/epiphany/api/hopsim/epiphany_package.hpp DESTINATION include/hopsim)
install(DIRECTORY sim/epiphany/include/hopsim/epiphany DESTINATION include/hopsim)
install(DIRECTORY sim/interpose/include/hopsim/interpose DESTINATION include/hopsim)
install(DIRECTORY sim/core/include/hopsim/core DESTINATION include/hopsim)
install(DIRECTORY models/epiphany/include/hopsim/epiphany DESTINATION include/hopsim)
install(DIRECTORY topologies/include/hopsim/topo DESTINATION include/hopsim)
install(DIRECTORY presets/ DESTINATION share/hopsim/presets FILES_MATCHING PATTERN "*.json")
install(DIRECTORY ${CMAKE_BINARY_DIR}/kernels/epiphany/ DESTINATION lib/hopsim/kernels
  FILES_MATCHING PATTERN "*.hopsim.so")
install(DIRECTORY kernels/epiphany/ DESTINATION share/hopsim/kernels/epiphany
  FILES_MATCHING PATTERN "*.json" PATTERN "*.cl" PATTERN "*.cpp" PATTERN "*.h")
install(DIRECTORY kernels/bgq/ DESTINATION share/hopsim/kernels/bgq FILES_MATCHING PATTERN "*.json" PATTERN "*.cpp")
# Shipped scenarios: `hopsim run kernels/host/ring.json` works from any folder
# (find_data_file looks in share/hopsim).
install(DIRECTORY kernels/host/ DESTINATION share/hopsim/kernels/host FILES_MATCHING PATTERN "*.json")
install(DIRECTORY kernels/xeonphi/ DESTINATION share/hopsim/kernels/xeonphi FILES_MATCHING PATTERN "*.json")
install(DIRECTORY models/network/examples/ DESTINATION share/hopsim/models/network/examples FILES_MATCHING PATTERN "*.json")
configure_file(cmake/hopsimConfig.cmake.in ${CMAKE_BINARY_DIR}/install/hopsimConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/hopsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/hopsimConfig.cmake ${CMAKE_BINARY_DIR}/install/hopsimConfigVersion.cmake
  cmake/HopsimKernel.cmake DESTINATION lib/cmake/hopsim)
# The trace viewer, when Qt 6 was found.
if(TARGET hopsim-gui)
  install(TARGETS hopsim-gui RUNTIME DESTINATION bin)
endif()
