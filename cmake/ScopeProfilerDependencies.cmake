# Finds MPI and HDF5. With MPI the HDF5 found must be the parallel one:
# a serial HDF5 would silently make every rank write its own file.
find_package(Threads REQUIRED)

if(SCOPE_PROFILER_ENABLE_MPI)
  find_package(MPI REQUIRED COMPONENTS C)
  set(HDF5_PREFER_PARALLEL ON)
else()
  set(HDF5_PREFER_PARALLEL OFF)
endif()
find_package(HDF5 REQUIRED COMPONENTS C)

if(SCOPE_PROFILER_ENABLE_MPI AND NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR
    "scope-profiler: SCOPE_PROFILER_ENABLE_MPI=ON needs a parallel HDF5, but the HDF5 found "
    "(${HDF5_C_INCLUDE_DIRS}) is serial. Install a parallel HDF5 (Debian: libhdf5-openmpi-dev), "
    "point HDF5_ROOT at one, or configure with -DSCOPE_PROFILER_ENABLE_MPI=OFF.")
endif()
if(NOT SCOPE_PROFILER_ENABLE_MPI AND HDF5_IS_PARALLEL)
  message(STATUS "scope-profiler: MPI disabled but the HDF5 found is parallel; it is used serially.")
endif()

# One interface target for HDF5 so every part links it the same way.
# Parallel HDF5's headers include mpi.h, hence MPI::MPI_C beside it.
add_library(sp_hdf5 INTERFACE)
target_link_libraries(sp_hdf5 INTERFACE HDF5::HDF5)
if(HDF5_IS_PARALLEL)
  if(NOT TARGET MPI::MPI_C)
    find_package(MPI REQUIRED COMPONENTS C)
  endif()
  target_link_libraries(sp_hdf5 INTERFACE MPI::MPI_C)
endif()
