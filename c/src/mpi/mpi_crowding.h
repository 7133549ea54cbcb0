/* mpi_crowding.h - how many ranks share a CPU (mpi_crowding.c). */
#ifndef SP_MPI_CROWDING_H
#define SP_MPI_CROWDING_H

#include <mpi.h>

/* The most ranks of comm per CPU on any node, rounded up; 1 when unknown.
 * Above 1 where a node runs more ranks than the CPUs its ranks may use.
 * Collective; the same answer on every rank. */
int sp__mpi_ranks_per_cpu(MPI_Comm comm, int rank, int size);

#endif
