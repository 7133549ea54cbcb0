# Configures, builds and tests scope-profiler in a separate tree with other
# options (a build without MPI, a build with LIKWID, ...):
#   cmake -DSRC=... -DBIN=... -DOPTIONS="-DA=ON|-DB=OFF" [-DTARGET=t] -DTESTS=regex -P nested_build.cmake
# Called through sp_add_nested_build_test (SpTestHelpers.cmake).
string(REPLACE "|" ";" options "${OPTIONS}")
set(build_args --build ${BIN} -j2)
if(TARGET)
  list(APPEND build_args --target ${TARGET})
endif()
foreach(step
    "${CMAKE_COMMAND};-S;${SRC};-B;${BIN};-DSCOPE_PROFILER_WERROR=ON;${options}"
    "${CMAKE_COMMAND};${build_args}"
    "${CMAKE_CTEST_COMMAND};--test-dir;${BIN};--output-on-failure;--no-tests=error;-R;${TESTS}")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nested build step failed (${rc}): ${step}")
  endif()
endforeach()
