/* mpi_arrival.h - finalize's bounded wait for every rank to arrive. */
#ifndef SP_MPI_ARRIVAL_H
#define SP_MPI_ARRIVAL_H

#include <mpi.h>
#include <stdint.h>

#include "par.h"

/* What the arrival tells every rank when it returns 0. */
typedef struct sp_arrival {
  int ranks_per_cpu; /* as sp__mpi_ranks_per_cpu (mpi_crowding.h) */
  int any_active;    /* some rank passed active nonzero */
} sp_arrival_t;

/* Waits at most timeout_s seconds for every rank of comm (a communicator
 * of the library's own, so no message of the program can match ours) to
 * call this too, for the same operation op (an sp_par_op_t) with the same
 * sequence number seq of the session. 0 when all arrived, with *out
 * filled (active: whether this rank records); SP_ETIMEDOUT, after a
 * message naming the ranks that did not arrive (or rank 0, when it never
 * answered); SP_EMPI, after a message naming them, when ranks began
 * another operation (or seq) than rank 0, or when an MPI call failed. */
SP_HIDDEN int sp__mpi_arrival(MPI_Comm comm, int64_t timeout_s, int op, int seq, int active,
                              sp_arrival_t *out);

#endif
