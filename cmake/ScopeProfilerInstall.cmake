# Install rules for every part that exists in this build, the CMake config
# package (install tree and build tree) and the pkg-config files.
#
# Included at the end of the top-level CMakeLists.txt, after all parts have
# defined their targets; each part is optional, hence the if(TARGET ...).
# One export set, scope-profilerTargets, holds all libraries; the config
# file maps the optional ones to find_package() components.

include(CMakePackageConfigHelpers)

set(SCOPE_PROFILER_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/scope-profiler"
  CACHE STRING "Where scope-profilerConfig.cmake is installed, relative to the prefix")
set(SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
  CACHE STRING "Where the .pc files are installed, relative to the prefix")
mark_as_advanced(SCOPE_PROFILER_CMAKE_INSTALL_DIR SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR)

# Installed libraries and programs find their sibling libraries through
# $ORIGIN, so a prefix outside the loader's path works without
# LD_LIBRARY_PATH. Appended, never replaced: Spack and distributions set
# CMAKE_INSTALL_RPATH for the dependencies and that must survive.
file(RELATIVE_PATH _sp_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
function(sp_install_rpath_add target origin_entry)
  if(CMAKE_SKIP_INSTALL_RPATH OR CMAKE_SKIP_RPATH)
    return()
  endif()
  get_target_property(_rpath ${target} INSTALL_RPATH)
  if(NOT _rpath)
    set(_rpath "")
  endif()
  list(APPEND _rpath "${origin_entry}")
  list(REMOVE_DUPLICATES _rpath)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${_rpath}")
endfunction()

# Standard destinations for one library target of the export set.
# NAMELINK_COMPONENT keeps the unversioned .so with the headers.
macro(sp_install_library target)
  install(TARGETS ${target} EXPORT scope-profilerTargets
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
            NAMELINK_COMPONENT development
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  get_target_property(_sp_type ${target} TYPE)
  if(_sp_type STREQUAL "SHARED_LIBRARY")
    sp_install_rpath_add(${target} "$ORIGIN")
  endif()
endmacro()

# Components present in this build; written into the config file.
set(SCOPE_PROFILER_COMPONENTS "")

# ---- C core --------------------------------------------------------------
if(NOT TARGET scope_profiler)
  message(WARNING "scope-profiler: no target scope_profiler; nothing to install")
  return()
endif()
sp_install_library(scope_profiler)
install(FILES ${PROJECT_SOURCE_DIR}/c/include/scope_profiler.h
  ${PROJECT_BINARY_DIR}/c/include/scope_profiler_version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
if(SCOPE_PROFILER_ENABLE_MPI)
  # Only an MPI build has sp_mpi_set_comm(); the header would promise a
  # function the library lacks.
  install(FILES ${PROJECT_SOURCE_DIR}/c/include/scope_profiler_mpi.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
  list(APPEND SCOPE_PROFILER_COMPONENTS mpi)
endif()
if(TARGET scope-profiler-merge)
  # Rebuilds a profile from spill files after a crash; needs no PLplot.
  install(TARGETS scope-profiler-merge
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  sp_install_rpath_add(scope-profiler-merge "$ORIGIN/${_sp_bin_to_lib}")
endif()
get_target_property(_sp_core_type scope_profiler TYPE)
if(_sp_core_type STREQUAL "STATIC_LIBRARY")
  set(SCOPE_PROFILER_STATIC ON)
  # A static archive does not carry its dependencies: the installed target
  # must name HDF5 itself (the build tree gets it through sp_hdf5), and the
  # config file finds HDF5 again. LINK_ONLY: consumers need HDF5's
  # libraries, not its headers.
  target_link_libraries(scope_profiler INTERFACE
    "$<INSTALL_INTERFACE:$<LINK_ONLY:HDF5::HDF5>>")
else()
  set(SCOPE_PROFILER_STATIC OFF)
endif()

# A static archive beside the shared library, if c/CMakeLists.txt builds
# one (target scope_profiler_static, OUTPUT_NAME scope_profiler): installed
# as scope-profiler::scope-profiler-static, needing HDF5 like a static core.
if(TARGET scope_profiler_static)
  sp_install_library(scope_profiler_static)
  target_link_libraries(scope_profiler_static INTERFACE
    "$<INSTALL_INTERFACE:$<LINK_ONLY:HDF5::HDF5>>")
  set(SCOPE_PROFILER_STATIC ON)
endif()

# ---- Fortran module ------------------------------------------------------
if(TARGET scope_profiler_fortran)
  sp_install_library(scope_profiler_fortran)
  # .mod files are compiler specific: install them where the target's
  # INSTALL_INTERFACE include directory points (fortran/CMakeLists.txt).
  get_target_property(_sp_moddir scope_profiler_fortran Fortran_MODULE_DIRECTORY)
  if(DEFINED SCOPE_PROFILER_FORTRAN_MODULE_INSTALL_DIR)
    set(_sp_mod_dest "${SCOPE_PROFILER_FORTRAN_MODULE_INSTALL_DIR}")
  else()
    string(REGEX MATCH "^[0-9]+" _sp_fc_major "${CMAKE_Fortran_COMPILER_VERSION}")
    set(_sp_mod_dest
      "${CMAKE_INSTALL_INCLUDEDIR}/scope-profiler/fortran/${CMAKE_Fortran_COMPILER_ID}-${_sp_fc_major}")
  endif()
  install(DIRECTORY "${_sp_moddir}/" DESTINATION "${_sp_mod_dest}"
    COMPONENT development FILES_MATCHING PATTERN "*.mod" PATTERN "*.smod")
  # The macros for .F90 files (SP_REGION_HERE), found on the same include path.
  install(FILES "${PROJECT_SOURCE_DIR}/fortran/scope_profiler.h90" DESTINATION "${_sp_mod_dest}"
    COMPONENT development)
  list(APPEND SCOPE_PROFILER_COMPONENTS fortran)
endif()

# ---- Reader library and postprocessor -----------------------------------
if(TARGET scope_profiler_reader)
  sp_install_library(scope_profiler_reader)
  install(FILES ${PROJECT_SOURCE_DIR}/postproc/include/scope_profiler_reader.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
  get_target_property(_sp_reader_type scope_profiler_reader TYPE)
  if(_sp_reader_type STREQUAL "STATIC_LIBRARY")
    target_link_libraries(scope_profiler_reader INTERFACE
      "$<INSTALL_INTERFACE:$<LINK_ONLY:HDF5::HDF5>>")
    set(SCOPE_PROFILER_STATIC ON)
  endif()
  list(APPEND SCOPE_PROFILER_COMPONENTS reader)
endif()
if(TARGET scope-profiler-pproc)
  # A program, not part of the export set: users run it, they do not link it.
  install(TARGETS scope-profiler-pproc
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  sp_install_rpath_add(scope-profiler-pproc "$ORIGIN/${_sp_bin_to_lib}")
endif()

# ---- Bindings ------------------------------------------------------------
if(TARGET scope_profiler_cpp)
  install(TARGETS scope_profiler_cpp EXPORT scope-profilerTargets)
  install(FILES ${PROJECT_SOURCE_DIR}/bindings/cpp/scope_profiler.hpp
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
  list(APPEND SCOPE_PROFILER_COMPONENTS cpp)
endif()
# The Python package scope_profiler_native is installed by
# bindings/python/CMakeLists.txt itself (COMPONENT python), because only
# that file knows the generated _paths.py; nothing to do here.

# ---- Automatic regions (-finstrument-functions) ---------------------------
if(TARGET scope_profiler_instrument)
  sp_install_library(scope_profiler_instrument)
  list(APPEND SCOPE_PROFILER_COMPONENTS instrument)
endif()

# ---- NVTX (docs/gpu.md) ----------------------------------------------------
# The injection library (NVTX_INJECTION64_PATH) and NVTX3's C API as symbols;
# the Fortran module scope_profiler_nvtx goes with the other .mod files.
if(TARGET scope_profiler_nvtx)
  sp_install_library(scope_profiler_nvtx)
  sp_install_library(scope_profiler_nvtx_api)
  list(APPEND SCOPE_PROFILER_COMPONENTS nvtx)
endif()
if(TARGET scope_profiler_nvtx_f)
  sp_install_library(scope_profiler_nvtx_f)
  list(APPEND SCOPE_PROFILER_COMPONENTS nvtx_fortran)
endif()

# ---- CMake config package -----------------------------------------------
# Values the config file needs to find the same dependencies again.
set(SCOPE_PROFILER_HDF5_IS_PARALLEL ${HDF5_IS_PARALLEL})
if(NOT SCOPE_PROFILER_HDF5_IS_PARALLEL)
  set(SCOPE_PROFILER_HDF5_IS_PARALLEL OFF)
endif()
foreach(_sp_opt MPI FORTRAN LIKWID POSTPROC BINDINGS)
  if(SCOPE_PROFILER_ENABLE_${_sp_opt})
    set(SP_CFG_${_sp_opt} ON)
  else()
    set(SP_CFG_${_sp_opt} OFF)
  endif()
endforeach()

# What the config file uses in projects that cannot run FindThreads,
# FindMPI for C or FindHDF5 (Fortran-only, C++-only): the thread flags,
# MPI's C include directories and libraries, HDF5's libraries (static
# builds) as this build found them.
set(SP_CFG_THREAD_LIBS "${CMAKE_THREAD_LIBS_INIT}")
set(SP_CFG_HDF5_LIBRARIES "${HDF5_C_LIBRARIES}")
if(NOT SP_CFG_HDF5_LIBRARIES)
  set(SP_CFG_HDF5_LIBRARIES "${HDF5_LIBRARIES}")
endif()
set(SP_CFG_MPI_C_LIBRARIES "")
set(SP_CFG_MPI_C_INCLUDE_DIRS "")
if(SCOPE_PROFILER_ENABLE_MPI)
  set(SP_CFG_MPI_C_LIBRARIES "${MPI_C_LIBRARIES}")
  set(SP_CFG_MPI_C_INCLUDE_DIRS "${MPI_C_INCLUDE_DIRS}")
endif()

install(EXPORT scope-profilerTargets
  NAMESPACE scope-profiler::
  DESTINATION ${SCOPE_PROFILER_CMAKE_INSTALL_DIR}
  COMPONENT development)
# Build tree: find_package(scope-profiler) with scope-profiler_DIR set to
# the build directory uses the targets in place (BUILD_INTERFACE paths).
# Static libraries list their PRIVATE links (sp_warnings, sp_hdf5, as
# $<LINK_ONLY:$<BUILD_INTERFACE:...>>) in their interface, and export()
# keeps BUILD_INTERFACE parts, so it would need those internal targets in
# the export set. Until they are linked differently, a static build has
# the installed package only.
if(SCOPE_PROFILER_STATIC)
  set(SCOPE_PROFILER_BUILD_TREE_PACKAGE OFF)
  message(STATUS "scope-profiler: static build, no CMake package in the build tree "
                 "(install it and use the installed one)")
else()
  set(SCOPE_PROFILER_BUILD_TREE_PACKAGE ON)
  export(EXPORT scope-profilerTargets
    NAMESPACE scope-profiler::
    FILE ${PROJECT_BINARY_DIR}/scope-profilerTargets.cmake)
endif()

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/scope-profilerConfig.cmake.in
  ${PROJECT_BINARY_DIR}/scope-profilerConfig.cmake
  INSTALL_DESTINATION ${SCOPE_PROFILER_CMAKE_INSTALL_DIR})
# SameMajorVersion would be the promise after 1.0; before it every minor
# release may break the API, hence SameMinorVersion.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/scope-profilerConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/scope-profilerConfig.cmake
  ${PROJECT_BINARY_DIR}/scope-profilerConfigVersion.cmake
  DESTINATION ${SCOPE_PROFILER_CMAKE_INSTALL_DIR}
  COMPONENT development)

# ---- pkg-config ----------------------------------------------------------
# scope-profiler.pc (C) and scope-profiler-fortran.pc. Dependencies are named
# by their own .pc modules when the system has them (Debian: ompi-c,
# ompi-fort, hdf5-openmpi, hdf5-serial; Spack: hdf5, mpich, ...), otherwise
# spelled out from what CMake found. The SCOPE_PROFILER_PC_* cache entries
# override the search, "" meaning "spell out".
find_package(PkgConfig QUIET)

# Sets <out_var> (cache) to the first module of the candidates that
# pkg-config knows, or "" when none or no pkg-config.
function(sp_pc_pick out_var doc)
  if(DEFINED CACHE{${out_var}})
    return()
  endif()
  set(_found "")
  if(PKG_CONFIG_EXECUTABLE)
    foreach(_m IN LISTS ARGN)
      execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --exists ${_m}
        RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(_found ${_m})
        break()
      endif()
    endforeach()
  endif()
  set(${out_var} "${_found}" CACHE STRING "${doc}")
  mark_as_advanced(${out_var})
endfunction()

# Library paths or flags from a CMake list as linker flags for a .pc file.
function(sp_pc_libs out_var)
  set(_flags "")
  foreach(_l IN LISTS ARGN)
    if(_l MATCHES "^-" OR IS_ABSOLUTE "${_l}")
      list(APPEND _flags "${_l}")
    elseif(_l MATCHES "::")
      # An imported target (Threads::Threads): pthread is all it can be here.
      if(_l STREQUAL "Threads::Threads")
        list(APPEND _flags "-pthread")
      endif()
    elseif(NOT _l MATCHES "^\\$<")
      list(APPEND _flags "-l${_l}")
    endif()
  endforeach()
  list(JOIN _flags " " _flags)
  set(${out_var} "${_flags}" PARENT_SCOPE)
endfunction()

function(sp_pc_cflags out_var)
  set(_flags "")
  foreach(_d IN LISTS ARGN)
    list(APPEND _flags "-I${_d}")
  endforeach()
  list(JOIN _flags " " _flags)
  set(${out_var} "${_flags}" PARENT_SCOPE)
endfunction()

# Paths relative to ${pcfiledir}, so the installed tree can be moved
# (and `cmake --install --prefix` anywhere gives correct files).
set(_sp_pc_abs_dir "${CMAKE_INSTALL_PREFIX}/${SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR}")
if(IS_ABSOLUTE "${SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR}")
  set(_sp_pc_abs_dir "${SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR}")
endif()
file(RELATIVE_PATH SP_PC_PCDIR_TO_PREFIX "${_sp_pc_abs_dir}" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" SP_PC_PCDIR_TO_PREFIX "${SP_PC_PCDIR_TO_PREFIX}")
if(IS_ABSOLUTE "${SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR}")
  set(SP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(SP_PC_PREFIX "\${pcfiledir}/${SP_PC_PCDIR_TO_PREFIX}")
endif()
foreach(_sp_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_sp_d}}")
    set(SP_PC_${_sp_d} "${CMAKE_INSTALL_${_sp_d}}")
  else()
    set(SP_PC_${_sp_d} "\${prefix}/${CMAKE_INSTALL_${_sp_d}}")
  endif()
endforeach()

sp_pc_pick(SCOPE_PROFILER_PC_MPI_C "pkg-config module of MPI for C in scope-profiler.pc"
  ompi-c mpich mpi-c mpi)
sp_pc_pick(SCOPE_PROFILER_PC_MPI_FORTRAN "pkg-config module of MPI for Fortran in scope-profiler-fortran.pc"
  ompi-fort mpi-fort)
if(SCOPE_PROFILER_HDF5_IS_PARALLEL)
  sp_pc_pick(SCOPE_PROFILER_PC_HDF5 "pkg-config module of HDF5 in scope-profiler.pc"
    hdf5-openmpi hdf5-mpich hdf5)
else()
  sp_pc_pick(SCOPE_PROFILER_PC_HDF5 "pkg-config module of HDF5 in scope-profiler.pc"
    hdf5-serial hdf5)
endif()

# scope-profiler.pc
set(SP_PC_REQUIRES "")
set(SP_PC_REQUIRES_PRIVATE "")
set(SP_PC_CFLAGS "")
set(SP_PC_LIBS "")
set(SP_PC_LIBS_PRIVATE "-pthread")
if(SCOPE_PROFILER_ENABLE_MPI)
  # Public: scope_profiler_mpi.h includes mpi.h and the library interposes
  # MPI_Finalize, so programs compile and link against the same MPI.
  if(SCOPE_PROFILER_PC_MPI_C)
    set(SP_PC_REQUIRES "${SCOPE_PROFILER_PC_MPI_C}")
  else()
    sp_pc_cflags(SP_PC_CFLAGS ${MPI_C_INCLUDE_DIRS})
    sp_pc_libs(SP_PC_LIBS ${MPI_C_LIBRARIES})
    string(PREPEND SP_PC_CFLAGS " ")
    string(PREPEND SP_PC_LIBS " ")
  endif()
endif()
# HDF5 is private (no HDF5 header is installed): static linking needs it.
if(SCOPE_PROFILER_PC_HDF5)
  set(SP_PC_REQUIRES_PRIVATE "${SCOPE_PROFILER_PC_HDF5}")
elseif(SCOPE_PROFILER_STATIC)
  sp_pc_libs(_sp_hdf5_flags ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
  string(APPEND SP_PC_LIBS_PRIVATE " ${_sp_hdf5_flags}")
endif()
if(_sp_core_type STREQUAL "STATIC_LIBRARY")
  # The header's export macro must know the library is static.
  string(APPEND SP_PC_CFLAGS " -DSP_STATIC_DEFINE")
endif()
get_target_property(SP_PC_LIBNAME scope_profiler OUTPUT_NAME)
if(NOT SP_PC_LIBNAME)
  set(SP_PC_LIBNAME scope_profiler)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/scope-profiler.pc.in
  ${PROJECT_BINARY_DIR}/pkgconfig/scope-profiler.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/scope-profiler.pc
  DESTINATION ${SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR} COMPONENT development)

# scope-profiler-fortran.pc
if(TARGET scope_profiler_fortran)
  file(RELATIVE_PATH SP_PC_FMODDIR "${CMAKE_INSTALL_PREFIX}" "${CMAKE_INSTALL_PREFIX}/${_sp_mod_dest}")
  set(SP_PC_FMODDIR "\${prefix}/${SP_PC_FMODDIR}")
  if(IS_ABSOLUTE "${_sp_mod_dest}")
    set(SP_PC_FMODDIR "${_sp_mod_dest}")
  endif()
  set(SP_PC_F_REQUIRES "scope-profiler = ${PROJECT_VERSION}")
  set(SP_PC_F_CFLAGS "")
  set(SP_PC_F_LIBS "")
  if(SCOPE_PROFILER_ENABLE_MPI)
    # scope_profiler.mod uses mpi_f08, whose .mod Debian's ompi-fort.pc
    # does not point at; the directory FindMPI found is added explicitly.
    if(SCOPE_PROFILER_PC_MPI_FORTRAN)
      string(APPEND SP_PC_F_REQUIRES ", ${SCOPE_PROFILER_PC_MPI_FORTRAN}")
    else()
      sp_pc_libs(SP_PC_F_LIBS ${MPI_Fortran_LIBRARIES})
      string(PREPEND SP_PC_F_LIBS " ")
    endif()
    sp_pc_cflags(SP_PC_F_CFLAGS ${MPI_Fortran_MODULE_DIR} ${MPI_Fortran_INCLUDE_DIRS})
    if(SP_PC_F_CFLAGS)
      string(PREPEND SP_PC_F_CFLAGS " ")
    endif()
  endif()
  # <compiler id>-<major>, the last part of the module directory.
  get_filename_component(SP_PC_F_COMPILER "${_sp_mod_dest}" NAME)
  get_target_property(SP_PC_F_LIBNAME scope_profiler_fortran OUTPUT_NAME)
  if(NOT SP_PC_F_LIBNAME)
    set(SP_PC_F_LIBNAME scope_profiler_fortran)
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/scope-profiler-fortran.pc.in
    ${PROJECT_BINARY_DIR}/pkgconfig/scope-profiler-fortran.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/scope-profiler-fortran.pc
    DESTINATION ${SCOPE_PROFILER_PKGCONFIG_INSTALL_DIR} COMPONENT development)
endif()
