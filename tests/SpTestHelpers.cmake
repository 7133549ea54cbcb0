# Helpers shared by the test directories.

# Environment every MPI test needs: CI runs as root on 2 cores, so Open MPI
# must be allowed to run as root and to oversubscribe.
set(SP_MPI_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none)

# The Python that has h5py (the python3 on PATH may not).
find_program(SP_H5PY_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(SP_H5DUMP h5dump)
# The h5py checker of profiles every test directory uses (see its --help).
set(SP_CHECK_PROFILE ${CMAKE_CURRENT_LIST_DIR}/common/check_profile.py)

# sp_add_mpi_test(NAME name NP n COMMAND exe args...)
# Runs COMMAND under mpirun with n ranks (or directly when MPI is off and n is 1).
function(sp_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;NP;WORKING_DIRECTORY" "COMMAND" ${ARGN})
  if(NOT T_WORKING_DIRECTORY)
    set(T_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  if(SCOPE_PROFILER_ENABLE_MPI)
    add_test(NAME ${T_NAME}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${MPIEXEC_PREFLAGS}
              ${T_COMMAND} ${MPIEXEC_POSTFLAGS}
      WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  else()
    add_test(NAME ${T_NAME} COMMAND ${T_COMMAND} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  endif()
  set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${SP_MPI_TEST_ENV}" TIMEOUT 300)
endfunction()

# sp_add_nested_build_test(NAME n OPTIONS -Dx=y... TESTS regex [TARGET t]):
# a test that builds the project again in its own tree with OPTIONS and runs
# the tests matching regex there.
function(sp_add_nested_build_test)
  cmake_parse_arguments(T "" "NAME;TESTS;TARGET" "OPTIONS" ${ARGN})
  string(REPLACE ";" "|" opts "${T_OPTIONS}")
  set(target_arg "")
  if(T_TARGET)
    set(target_arg -DTARGET=${T_TARGET})
  endif()
  add_test(NAME ${T_NAME}
    COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DBIN=${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}-build
            "-DOPTIONS=${opts}" ${target_arg} "-DTESTS=${T_TESTS}"
            -P ${PROJECT_SOURCE_DIR}/tests/nested_build.cmake)
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT 900)
endfunction()

# sp_add_pproc_case(GROUP g NAME n FIXTURE f [WORKDIR d] [LABELS l...]
#                   RC code ARGS a... [PREFIX cmd...] [OUT re...] [ERR re]
#                   [NOT_OUT re] [IMAGE path KIND k WIDTH w HEIGHT h] [TIMEOUT s])
# The test g.n: runs scope-profiler-pproc ARGS (after PREFIX, e.g. env) and
# checks exit code, stdout, stderr and an image with check_cli.cmake. Needs
# the fixture f that writes the input files. TIMEOUT (default 120 s) bounds
# the command.
set(SP_CHECK_CLI ${CMAKE_CURRENT_LIST_DIR}/postproc/check_cli.cmake)
function(sp_add_pproc_case)
  cmake_parse_arguments(C "" "GROUP;NAME;FIXTURE;WORKDIR;RC;ERR;NOT_OUT;IMAGE;KIND;WIDTH;HEIGHT;TIMEOUT"
    "ARGS;OUT;PREFIX;LABELS" ${ARGN})
  set(pproc $<TARGET_FILE:scope-profiler-pproc>)
  list(JOIN C_ARGS "@@" args)
  set(cmd ${pproc})
  if(C_PREFIX)
    list(JOIN C_PREFIX "@@" pre)
    set(cmd "${pre}@@${pproc}")
  endif()
  set(defs "-DCMD=${cmd}@@${args}" -DRC=${C_RC})
  if(DEFINED C_OUT)
    list(JOIN C_OUT "@@" outs)
    list(APPEND defs "-DOUT=${outs}")
  endif()
  foreach(v ERR NOT_OUT IMAGE KIND WIDTH HEIGHT TIMEOUT)
    if(DEFINED C_${v})
      list(APPEND defs "-D${v}=${C_${v}}")
    endif()
  endforeach()
  if(NOT C_WORKDIR)
    set(C_WORKDIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_test(NAME ${C_GROUP}.${C_NAME}
    COMMAND ${CMAKE_COMMAND} ${defs} -P ${SP_CHECK_CLI}
    WORKING_DIRECTORY ${C_WORKDIR})
  set_tests_properties(${C_GROUP}.${C_NAME} PROPERTIES FIXTURES_REQUIRED ${C_FIXTURE})
  if(C_TIMEOUT)
    set_tests_properties(${C_GROUP}.${C_NAME} PROPERTIES TIMEOUT ${C_TIMEOUT})
  endif()
  if(C_LABELS)
    set_tests_properties(${C_GROUP}.${C_NAME} PROPERTIES LABELS "${C_LABELS}")
  endif()
endfunction()
