/* mpi_crowding.h - how many ranks share a CPU (mpi_crowding.c). */
#ifndef SP_MPI_CROWDING_H
#define SP_MPI_CROWDING_H

#include <mpi.h>
#include <stdint.h>

#include "sp_internal.h"

/* Where a rank runs: its node and the CPUs it may run on (a cpu_set_t). */
enum { SP_WHERE_WORDS = 16 };
typedef struct sp_where {
  uint64_t node; /* sp__mpi_node_hash */
  uint64_t cpus[SP_WHERE_WORDS];
} sp_where_t;
SP_HIDDEN sp_where_t sp__mpi_where_am_i(void);
/* The most ranks per CPU on any node of w[0..n), rounded up: a node's
 * ranks over the CPUs any of them may run on. Sorts w. */
SP_HIDDEN int sp__mpi_most_per_cpu(sp_where_t *w, int n);
/* The most ranks of comm per CPU on any node, rounded up; 1 when unknown.
 * Above 1 where a node runs more ranks than the CPUs its ranks may use.
 * Collective; the same answer on every rank. */
SP_HIDDEN int sp__mpi_ranks_per_cpu(MPI_Comm comm, int rank, int size);
/* FNV-1a hash of MPI_Get_processor_name: ranks of one node (one kernel,
 * one CLOCK_MONOTONIC) have the same. */
SP_HIDDEN uint64_t sp__mpi_node_hash(void);

#endif
