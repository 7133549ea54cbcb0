# Shared by the consumer projects (c/, fortran/, cpp/), included after their
# find_package(scope-profiler ...): what a user's project would write once.
# Written for the oldest CMake policies the projects declare (3.0): no
# IN_LIST, no if(... IN_LIST ...), list(FIND) instead.

message(STATUS "consumer: scope-profiler ${scope-profiler_VERSION} from ${scope-profiler_DIR}")

# The tests pass the directory the package must come from, so that a
# copy installed elsewhere on the machine cannot make them pass.
if(SP_EXPECT_DIR)
  file(REAL_PATH "${scope-profiler_DIR}" _found)
  file(REAL_PATH "${SP_EXPECT_DIR}" _expected)
  cmake_path(IS_PREFIX _expected "${_found}" NORMALIZE _inside)
  if(NOT _inside)
    message(FATAL_ERROR "consumer: scope-profiler found in ${_found}, expected under ${_expected}")
  endif()
endif()

# sp_consumer_wants(<component> <var>): var is TRUE when the project asked
# find_package for that component (SP_COMPONENTS).
function(sp_consumer_wants component var)
  list(FIND SP_COMPONENTS ${component} _i)
  if(_i EQUAL -1)
    set(${var} FALSE PARENT_SCOPE)
  else()
    set(${var} TRUE PARENT_SCOPE)
  endif()
endfunction()

# sp_consumer_executable(<name> <source> <imported target>): the program.
# With the mpi component asked for, it initialises MPI and writes over
# MPI_COMM_WORLD (SP_CONSUMER_MPI); without, it runs as one process.
function(sp_consumer_executable name source target)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${target})
  sp_consumer_wants(mpi _mpi)
  if(_mpi)
    target_compile_definitions(${name} PRIVATE SP_CONSUMER_MPI)
  endif()
endfunction()
