# Configures, builds and runs the LIKWID tests in a separate tree with
# SCOPE_PROFILER_ENABLE_LIKWID=ON (CI's main tree builds without LIKWID):
#   cmake -DSRC=... -DBIN=... -P likwid_build.cmake
foreach(step
    "${CMAKE_COMMAND};-S;${SRC};-B;${BIN};-DSCOPE_PROFILER_ENABLE_LIKWID=ON;-DSCOPE_PROFILER_ENABLE_FORTRAN=OFF;-DSCOPE_PROFILER_ENABLE_POSTPROC=OFF;-DSCOPE_PROFILER_ENABLE_BINDINGS=OFF;-DSCOPE_PROFILER_WERROR=ON"
    "${CMAKE_COMMAND};--build;${BIN};-j2;--target;test_likwid"
    "${CMAKE_CTEST_COMMAND};--test-dir;${BIN};--output-on-failure;-R;^likwid\\.")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "LIKWID build step failed (${rc}): ${step}")
  endif()
endforeach()
