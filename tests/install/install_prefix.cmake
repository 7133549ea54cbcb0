# Installs the build tree BUILD_DIR into a fresh PREFIX (a CTest fixture).
# Usage: cmake -DBUILD_DIR=... -DPREFIX=... [-DCONFIG=...] -P install_prefix.cmake
foreach(_v BUILD_DIR PREFIX)
  if(NOT ${_v})
    message(FATAL_ERROR "install_prefix.cmake: ${_v} not set")
  endif()
endforeach()
# Stale files from an earlier run would hide a file no longer installed.
file(REMOVE_RECURSE "${PREFIX}")
set(_config "")
if(CONFIG)
  set(_config --config "${CONFIG}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${_config}
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed: ${_rc}")
endif()
