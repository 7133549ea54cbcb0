# Configures, builds and tests scope-profiler without MPI (serial HDF5) in a
# separate tree: cmake -DSRC=... -DBIN=... -P serial_build.cmake
foreach(step
    "${CMAKE_COMMAND};-S;${SRC};-B;${BIN};-DSCOPE_PROFILER_ENABLE_MPI=OFF;-DSCOPE_PROFILER_ENABLE_FORTRAN=OFF;-DSCOPE_PROFILER_ENABLE_POSTPROC=OFF;-DSCOPE_PROFILER_ENABLE_BINDINGS=OFF;-DSCOPE_PROFILER_WERROR=ON"
    "${CMAKE_COMMAND};--build;${BIN};-j2"
    "${CMAKE_CTEST_COMMAND};--test-dir;${BIN};--output-on-failure;-R;^core\\.")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "serial build step failed (${rc}): ${step}")
  endif()
endforeach()
