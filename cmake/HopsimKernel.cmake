# hopsim_add_kernel(NAME SOURCES src... [INCLUDES dir...] [DEPENDS file...] [OUTPUT_DIR dir])
# Builds NAME.hopsim.so with hopsim-cc (HOPSIM_CC) so `hopsim run` can load it.
function(hopsim_add_kernel name)
  cmake_parse_arguments(K "" "OUTPUT_DIR" "SOURCES;INCLUDES;DEPENDS" ${ARGN})
  if(NOT K_SOURCES)
    message(FATAL_ERROR "hopsim_add_kernel(${name}): no SOURCES")
  endif()
  if(NOT K_OUTPUT_DIR)
    set(K_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(out ${K_OUTPUT_DIR}/${name}.hopsim.so)
  set(srcs)
  foreach(s IN LISTS K_SOURCES)
    get_filename_component(a ${s} ABSOLUTE)
    list(APPEND srcs ${a})
  endforeach()
  set(incs)
  foreach(i IN LISTS K_INCLUDES)
    get_filename_component(a ${i} ABSOLUTE)
    list(APPEND incs -I${a})
  endforeach()
  set(deps ${srcs} ${K_DEPENDS} ${HOPSIM_CC})
  if(TARGET hopsim_device_pass)
    list(APPEND deps hopsim_device_pass)  # in hopsim's own tree: the pass hopsim-cc loads
    # ... and the runtime's headers the package code compiles against (a
    # changed struct layout must rebuild the library).
    file(GLOB_RECURSE runtime_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/*.h ${PROJECT_SOURCE_DIR}/sim/*.hpp
      ${PROJECT_SOURCE_DIR}/models/*.hpp ${PROJECT_SOURCE_DIR}/topologies/*.hpp ${PROJECT_SOURCE_DIR}/traces/*.hpp)
    list(APPEND deps ${runtime_headers})
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${HOPSIM_CC} -o ${out} ${srcs} ${incs}
    DEPENDS ${deps}
    COMMENT "hopsim-cc ${name}.hopsim.so"
    VERBATIM)
  add_custom_target(${name}-kernel ALL DEPENDS ${out})
endfunction()
