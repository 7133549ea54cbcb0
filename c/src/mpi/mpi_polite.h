/* mpi_polite.h - finalize's exchanges between ranks where a node runs more
 * ranks than it has cores: waiting ranks sleep instead of spinning. All
 * return an MPI error code; every rank of comm must call them in the same
 * order (rank: this rank's, size: comm's). */
#ifndef SP_MPI_POLITE_H
#define SP_MPI_POLITE_H

#include <mpi.h>
#include <stdint.h>

/* How many ranks share a CPU (the most on any node): the more, the
 * longer waiting ranks may sleep. Finalize's ranks are single-threaded
 * there, so this is set once per finalize for the process. */
void sp__mpi_polite_set_crowding(int ranks_per_cpu);

/* How long a rank that has waited waited_ns sleeps before it tests
 * again: 1/8 of that, at least 20 us, at most longest_ns. */
long sp__mpi_polite_nap_ns(int64_t waited_ns, long longest_ns);

/* Waits for all n requests (statuses may be MPI_STATUSES_IGNORE). */
int sp__mpi_polite_waitall(int n, MPI_Request *reqs, MPI_Status *statuses);

/* *worst = the smallest rc of all ranks. */
int sp__mpi_polite_min(MPI_Comm comm, int rank, int size, int rc, int *worst);
/* The same, and where it is 0 rank 0 runs root_then(arg) before it
 * answers: every rank gets that call's status in *worst, in the one
 * answer (par.h, sp__par_agree_then). */
int sp__mpi_polite_min_then(MPI_Comm comm, int rank, int size, int rc, int *worst,
                            int (*root_then)(void *), void *arg);

/* Rank 0 gets every rank's blob of len bytes, concatenated in rank order
 * in *all, rank r's from (*offs)[r] to (*offs)[r + 1]. Other ranks get
 * NULL for both. MPI_ERR_NO_MEM on rank 0 when it had no memory for them
 * (each blob is received all the same). Each rank sends its blob at once
 * and rank 0 takes them as they come (one message per rank; a length and
 * a go-ahead first cost two more exchanges, each a wake-up of every rank
 * where ranks share cores), so each gather needs a tag of its own, the
 * same on every rank: the next gather's blob of a rank may come before
 * another rank's of this one. */
int sp__mpi_polite_gather(MPI_Comm comm, int rank, int size, const char *blob, int len, int tag,
                          char **all, int64_t **offs);

/* Sends count values of type t from buf to rank `to` with tag; returns
 * when sent. */
int sp__mpi_polite_send(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, int to, int tag);

#endif
