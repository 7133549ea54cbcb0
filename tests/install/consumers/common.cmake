# Shared by the consumer projects (c/, fortran/), included after their
# find_package(scope-profiler ...): what a user's project would write once.

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

# sp_consumer_executable(<name> <source> <imported target>): the program,
# told by SP_CONSUMER_MPI whether the package was built with MPI.
function(sp_consumer_executable name source target)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${target})
  if(scope-profiler_WITH_MPI)
    target_compile_definitions(${name} PRIVATE SP_CONSUMER_MPI)
  endif()
endfunction()
