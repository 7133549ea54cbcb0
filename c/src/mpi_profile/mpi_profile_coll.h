/* mpi_profile_coll.h - a collective's bytes, for the C and Fortran wrappers. */
#ifndef SP_MPI_PROFILE_COLL_H
#define SP_MPI_PROFILE_COLL_H

#include <mpi.h>

#include "sp_internal.h"

/* ---- mpi_profile_coll.c: a collective's bytes (also for Fortran's calls);
 * s or r MPI_IN_PLACE where the caller passed it, rcs/scs NULL for the
 * forms without v ---- */
SP_HIDDEN int64_t sp__mpi_b_bcast(int count, MPI_Datatype t);
SP_HIDDEN int64_t sp__mpi_b_reduce(const void *s, int count, MPI_Datatype t, int root, MPI_Comm c);
SP_HIDDEN int64_t sp__mpi_b_twice(int count, MPI_Datatype t);
SP_HIDDEN int64_t sp__mpi_b_gather(const void *s, int sc, MPI_Datatype st, const int *rcs, int rc,
                                   MPI_Datatype rt, int root, MPI_Comm c);
SP_HIDDEN int64_t sp__mpi_b_scatter(const int *scs, int sc, MPI_Datatype st, const void *r, int rc,
                                    MPI_Datatype rt, int root, MPI_Comm c);
SP_HIDDEN int64_t sp__mpi_b_allgather(const void *s, int sc, MPI_Datatype st, const int *rcs,
                                      int rc, MPI_Datatype rt, MPI_Comm c);
SP_HIDDEN int64_t sp__mpi_b_alltoall(const void *s, const int *scs, int sc, MPI_Datatype st,
                                     const int *rcs, int rc, MPI_Datatype rt, MPI_Comm c);
SP_HIDDEN int64_t sp__mpi_b_reduce_scatter(const int *rcs, MPI_Datatype t, MPI_Comm c);
SP_HIDDEN int64_t sp__mpi_b_reduce_scatter_block(int rc, MPI_Datatype t, MPI_Comm c);

#endif
