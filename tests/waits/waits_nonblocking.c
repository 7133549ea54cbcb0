/* waits_nonblocking.c - nonblocking messages beside a blocking Late Sender,
 * for check_waits.py (issue 50). On 2 ranks:
 *   1. on MPI_COMM_WORLD rank 1 MPI_Isend's to rank 0, which MPI_Irecv's:
 *      3 messages completed by MPI_Waitall, 2 by MPI_Waitany, 2 by
 *      MPI_Testsome (tags 1..7; rank 1 completes its sends by MPI_Waitall);
 *   2. on a duplicate of MPI_COMM_WORLD (the same members: told apart by
 *      order) rank 1 sends tag 5 after late_send_work (150 ms) and rank 0,
 *      after a 20 ms settle, MPI_Recv's it: a Late Sender.
 * Part 1 is paired through the completion table (the Late Senders of
 * nonblocking receives are tested with delays in waits_nb_delays.c); the
 * Late Sender on the duplicate is found beside it, none unpaired. Rank 0
 * writes to argv[1] the wait from its own CLOCK_MONOTONIC stamps (as
 * waits_delays.c) and the count of unpaired calls:
 *   late_sender 0 phase_dup/MPI_Recv SECONDS 1 late_send_work
 *   unpaired nonblocking 0 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "scope_profiler.h"

enum { SETTLE_US = 20000, D_US = 150000, NMSG = 7 };

static long long now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void usleep_(int us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {}
}

/* Part 1 on rank 0: receives completed by Waitall, Waitany and Testsome. */
static void receive_all(int *buf) {
  MPI_Request rq[NMSG];
  for (int i = 0; i < NMSG; i++) MPI_Irecv(&buf[i], 1, MPI_INT, 1, i + 1, MPI_COMM_WORLD, &rq[i]);
  MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
  for (int k = 0; k < 2; k++) {
    int idx;
    MPI_Waitany(2, rq + 3, &idx, MPI_STATUS_IGNORE);
  }
  int left = 2;
  while (left > 0) {
    int done, idx[2];
    MPI_Testsome(2, rq + 5, &done, idx, MPI_STATUSES_IGNORE);
    if (done != MPI_UNDEFINED) left -= done;
  }
}

int main(int argc, char **argv) {
  int rank, n, buf[NMSG], x = 1, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 2 || argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  sp_start_name("phase_nb");
  if (rank == 0) {
    receive_all(buf);
  } else {
    MPI_Request rq[NMSG];
    for (int i = 0; i < NMSG; i++) MPI_Isend(&x, 1, MPI_INT, 0, i + 1, MPI_COMM_WORLD, &rq[i]);
    MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE);
  }
  sp_stop_name("phase_nb");
  MPI_Barrier(MPI_COMM_WORLD);
  long long t[3] = {0, 0, 0}; /* receive in, out; send in */
  sp_start_name("phase_dup");
  if (rank == 1) {
    sp_start_name("late_send_work");
    usleep_(D_US);
    sp_stop_name("late_send_work");
    t[2] = now();
    MPI_Send(&x, 1, MPI_INT, 0, 5, dup);
  } else {
    usleep_(SETTLE_US);
    t[0] = now();
    MPI_Recv(&y, 1, MPI_INT, 1, 5, dup, MPI_STATUS_IGNORE);
    t[1] = now();
  }
  sp_stop_name("phase_dup");
  int rc = sp_finalize();
  long long all[6];
  PMPI_Gather(t, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long long late = all[5] - all[0], d = all[1] - all[0];
    FILE *f = fopen(argv[1], "w");
    if (!f) rc = 1;
    if (f) {
      fprintf(f, "late_sender\t0\tphase_dup/MPI_Recv\t%.9f\t1\tlate_send_work\n",
              (late < d ? late : d) / 1e9);
      fprintf(f, "unpaired\tnonblocking\t0\n");
    }
    if (f && fclose(f) != 0) rc = 1;
  }
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return rc != 0;
}
