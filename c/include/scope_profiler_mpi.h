/*
 * scope_profiler_mpi.h - MPI-specific settings of scope-profiler.
 *
 * Included only by programs that use MPI; the main header needs no mpi.h.
 * By default the profile is written collectively over MPI_COMM_WORLD and
 * each rank's group is named after its rank in that communicator.
 */
#ifndef SCOPE_PROFILER_MPI_H
#define SCOPE_PROFILER_MPI_H

#include <mpi.h>

#include "scope_profiler.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Sets the communicator over which sp_finalize() writes the file. The
 * library keeps a duplicate (MPI_Comm_dup, collective over comm), so the
 * program may free comm at once; the duplicate is freed when another
 * communicator is set and before MPI_Finalize. Call after MPI_Init and
 * before sp_finalize, on every rank of comm, with the same comm on each.
 * Ranks outside comm must not call sp_finalize with a different
 * communicator. Returns 0; SP_EINVAL for MPI_COMM_NULL; SP_EMPI before
 * MPI_Init, after MPI_Finalize or when the duplicate fails (with a message
 * on stderr; the communicator is then unchanged); SP_ENOTSUP in a build
 * without MPI.
 */
SP_EXPORT int sp_mpi_set_comm(MPI_Comm comm);

/** As sp_mpi_set_comm() for a Fortran communicator handle (MPI_Fint). */
SP_EXPORT int sp_mpi_set_comm_f(MPI_Fint comm);

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_PROFILER_MPI_H */
