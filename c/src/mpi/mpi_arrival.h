/* mpi_arrival.h - finalize's bounded wait for every rank to arrive. */
#ifndef SP_MPI_ARRIVAL_H
#define SP_MPI_ARRIVAL_H

#include <mpi.h>
#include <stdint.h>

#include "par.h"

/* Waits at most timeout_s seconds for every rank of comm (a communicator
 * of the library's own, so no message of the program can match ours) to
 * call this too, for the same operation op (an sp_par_op_t) with the same
 * sequence number seq of the session. 0 when all arrived; SP_ETIMEDOUT,
 * after a message naming the ranks that did not arrive (or rank 0, when it
 * never answered); SP_EMPI, after a message naming them, when ranks began
 * another operation (or seq) than rank 0, or when an MPI call failed. */
int sp__mpi_arrival(MPI_Comm comm, int64_t timeout_s, int op, int seq);

#endif
