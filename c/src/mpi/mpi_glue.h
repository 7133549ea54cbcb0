/* mpi_glue.h - what mpi_glue.c's hooks tell finalize's MPI operations
 * (mpi_par.c). Internal; MPI builds only. */
#ifndef SP_MPI_GLUE_H
#define SP_MPI_GLUE_H

#include <mpi.h>

#include "sp_internal.h"

/* MPI is initialised and not finalized: finalize may use it. */
SP_HIDDEN int sp__mpi_usable(void);
/* The communicator to write over: sp_mpi_set_comm's (our duplicate), else
 * MPI_COMM_WORLD. */
SP_HIDDEN MPI_Comm sp__mpi_base_comm(void);
/* Our own duplicate of it for the bounded arrival wait (mpi_arrival.c), or
 * MPI_COMM_NULL when MPI_Init did not go through the library. */
SP_HIDDEN MPI_Comm sp__mpi_own_comm(void);
/* The spare duplicate of the base communicator for the next collective
 * operation (sp__par_begin), or MPI_COMM_NULL: then the caller duplicates
 * the base itself. Taken by every rank that begins the operation; *uses:
 * how many operations it served before. */
SP_HIDDEN MPI_Comm sp__mpi_fin_comm_take(unsigned *uses);
/* Hands c back as the spare after an operation that every rank agreed
 * ended well (the same decision on every rank: each holds the spare or
 * none); uses: counting this operation. */
SP_HIDDEN void sp__mpi_fin_comm_give_back(MPI_Comm c, unsigned uses);
/* Nonzero on a thread between sp__par_begin and sp__par_end (sp_report,
 * sp_finalize): the library's own MPI calls then are not recorded as
 * regions (profile_mpi, mpi_profile.c) in the trace or the aggregates. */
extern SP_HIDDEN __thread int sp__mpi_own_calls;

#endif
