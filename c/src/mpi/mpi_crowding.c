/* mpi_crowding.c - how many ranks share a CPU: finalize's ranks sleep
 * while they wait where more than one does (mpi_polite.c).
 *
 * Rank 0 groups the ranks by node (a hash of MPI_Get_processor_name) and
 * counts the CPUs each node's ranks may run on: one gather and one
 * broadcast, or carried by the arrival's messages (mpi_arrival.c), which
 * finalize and sp_report send anyway. MPI_Comm_split_type by shared
 * memory, then two allreduces, cost more: the split allocates a communicator, which takes rounds of
 * allreduces in which every rank spins. Sleeping here instead
 * (MPI_Comm_idup, then the gather and broadcast as mpi_polite.c's
 * messages) was slower still: in the benchmark the ranks arrive together,
 * and each round then waited for sleepers to wake. Figures:
 * docs/performance.md, "finalize at scale" ("Metadata"). */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_crowding.h"

enum { WORDS = SP_WHERE_WORDS };
_Static_assert(sizeof(cpu_set_t) == SP_WHERE_WORDS * sizeof(uint64_t), "cpu_set_t's size");

uint64_t sp__mpi_node_hash(void) {
  static uint64_t node; /* the same for the process's life */
  if (node) return node;
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS) len = 0;
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
  node = h;
  return h;
}

sp_where_t sp__mpi_where_am_i(void) {
  sp_where_t w;
  memset(&w, 0, sizeof w);
  w.node = sp__mpi_node_hash();
  /* Bound ranks have one core each, unbound ones all of the node's (or of
   * the job's cpuset). */
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_SET(0, &set);
  memcpy(w.cpus, &set, sizeof w.cpus);
  return w;
}

static int sp_by_node(const void *a, const void *b) {
  uint64_t x = ((const sp_where_t *)a)->node, y = ((const sp_where_t *)b)->node;
  return (x > y) - (x < y);
}

int sp__mpi_most_per_cpu(sp_where_t *w, int n) {
  qsort(w, (size_t)n, sizeof *w, sp_by_node);
  int most = 1;
  for (int first = 0, next; first < n; first = next) {
    uint64_t cpus[WORDS];
    memcpy(cpus, w[first].cpus, sizeof cpus);
    for (next = first + 1; next < n && w[next].node == w[first].node; next++)
      for (int k = 0; k < WORDS; k++) cpus[k] |= w[next].cpus[k];
    int ncpus = 0;
    for (int k = 0; k < WORDS; k++) ncpus += __builtin_popcountll(cpus[k]);
    int ranks = next - first, per_cpu = ncpus > 0 ? (ranks + ncpus - 1) / ncpus : 1;
    if (per_cpu > most) most = per_cpu;
  }
  return most;
}

int sp__mpi_ranks_per_cpu(MPI_Comm comm, int rank, int size) {
  sp_where_t me = sp__mpi_where_am_i();
  sp_where_t *all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
  /* Without memory rank 0 still takes part, and counts 1 (spin as MPI
   * does by default). */
  int junk = 0, most = 1;
  int err = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all ? (void *)all : (void *)&junk,
                       all ? (int)sizeof me : 0, MPI_BYTE, 0, comm);
  if (rank == 0 && all && err == MPI_SUCCESS) most = sp__mpi_most_per_cpu(all, size);
  free(all);
  MPI_Bcast(&most, 1, MPI_INT, 0, comm);
  return most;
}
