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

# NVTX3 (header-only, part of the CUDA toolkit): the injection library
# libscope_profiler_nvtx and SCOPE_PROFILER_NVTX=1 forwarding (docs/gpu.md).
# AUTO builds them when the headers are found; ON fails without them.
if(SCOPE_PROFILER_ENABLE_NVTX)
  set(_sp_nvtx_hints "")
  if(NOT SCOPE_PROFILER_NVTX_INCLUDE_DIR)
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_INCLUDE_DIRS)
      list(APPEND _sp_nvtx_hints ${CUDAToolkit_INCLUDE_DIRS})
    endif()
  endif()
  find_path(SP_NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h
    HINTS ${SCOPE_PROFILER_NVTX_INCLUDE_DIR} ${_sp_nvtx_hints}
    PATHS /usr/local/cuda/include /opt/cuda/include $ENV{CUDA_HOME}/include
    NO_DEFAULT_PATH)
  if(SP_NVTX3_INCLUDE_DIR)
    message(STATUS "scope-profiler: NVTX3 headers in ${SP_NVTX3_INCLUDE_DIR}")
    add_library(sp_nvtx3 INTERFACE)
    target_include_directories(sp_nvtx3 SYSTEM INTERFACE ${SP_NVTX3_INCLUDE_DIR})
    target_link_libraries(sp_nvtx3 INTERFACE ${CMAKE_DL_LIBS})
    set(SP_HAVE_NVTX ON)
  elseif(SCOPE_PROFILER_ENABLE_NVTX STREQUAL "AUTO")
    message(STATUS "scope-profiler: no NVTX3 headers (nvtx3/nvToolsExt.h); NVTX capture and "
      "forwarding left out (set SCOPE_PROFILER_NVTX_INCLUDE_DIR)")
    set(SP_HAVE_NVTX OFF)
  else()
    message(FATAL_ERROR "scope-profiler: SCOPE_PROFILER_ENABLE_NVTX=ON but no nvtx3/nvToolsExt.h "
      "under SCOPE_PROFILER_NVTX_INCLUDE_DIR (${SCOPE_PROFILER_NVTX_INCLUDE_DIR}), the CUDA "
      "toolkit or /usr/local/cuda/include")
  endif()
else()
  set(SP_HAVE_NVTX OFF)
endif()
