/* mpi_arrival.h - finalize's bounded wait for every rank to arrive. */
#ifndef SP_MPI_ARRIVAL_H
#define SP_MPI_ARRIVAL_H

#include <mpi.h>
#include <stdint.h>

/* Waits at most timeout_s seconds for every rank of comm (a communicator
 * of the library's own, so no message of the program can match ours) to
 * call this too. 0 when all arrived; SP_ETIMEDOUT, after a message naming
 * the ranks that did not arrive (or rank 0, when it never answered);
 * SP_EMPI when an MPI call failed. */
int sp__mpi_arrival(MPI_Comm comm, int64_t timeout_s);

#endif
