/* waits_merge.c - MPI records through spill files, for waits_merge.py
 * (issue 50: a merged file carries rank<N>/mpi as a finalized one does).
 *
 * usage: waits_merge FILE killed|done
 *
 * On 2 or 4 ranks with a tiny buffer_limit (SCOPE_PROFILER_BUFFER_LIMIT,
 * set by the test): communicators from MPI_Comm_split (by rank parity) and
 * MPI_Comm_dup; nonblocking messages on the split one completed by
 * MPI_Waitall (completions), a Sendrecv on the dup, an Allreduce on the
 * split one. Then a region "pad" recorded often enough that the thread's
 * events, and with them its MPI values, completions and communicators, go
 * to the spill file after the last MPI call.
 *   killed: writes FILE.ready.<rank> (its pid) and sleeps until SIGKILLed;
 *   done:   raises SIGUSR1, which sp_flush_on_signal turns into a flush
 *           of all its events at the next region (a handler of its own
 *           keeps the process), hard-links the spill files into FILE.kept/
 *           (the same files, which finalize then unlinks by their first
 *           names), then sp_finalize writes FILE: the kept spill files
 *           hold every MPI call the file holds. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"

enum { ROUNDS = 40, PAD = 400 };

static void on_usr1(int sig) { (void)sig; } /* the flush is the library's (sp_flush_on_signal) */

static void exchange(int rank, MPI_Comm half, MPI_Comm dup) {
  int hr, hn, n;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  MPI_Comm_size(dup, &n);
  for (int i = 0; i < ROUNDS; i++) {
    int out = rank * 1000 + i, in = -1, sum = 0, got = -1;
    MPI_Request rq[2];
    MPI_Irecv(&in, 1, MPI_INT, (hr + hn - 1) % hn, 10 + i % 3, half, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, (hr + 1) % hn, 10 + i % 3, half, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % n, 3, &got, 1, MPI_INT, (rank + n - 1) % n, 3, dup,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, half);
  }
}

/* Every file of FILE.spill/ linked into FILE.kept/ (another rank's already
 * linked: EEXIST). 0 or -1. */
static int keep_spills(const char *file) {
  char dir[4096], kept[4096], from[8192], to[8192];
  snprintf(dir, sizeof dir, "%s.spill", file);
  snprintf(kept, sizeof kept, "%s.kept", file);
  if (mkdir(kept, 0755) != 0 && errno != EEXIST) return -1;
  DIR *d = opendir(dir);
  if (!d) return -1;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
    snprintf(to, sizeof to, "%s/%s", kept, e->d_name);
    if (link(from, to) != 0 && errno != EEXIST) rc = -1;
  }
  closedir(d);
  return rc;
}

int main(int argc, char **argv) {
  int rank, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int killed = argc == 3 && strcmp(argv[2], "killed") == 0;
  if (argc != 3 || (!killed && strcmp(argv[2], "done") != 0) || n < 2 || n % 2)
    MPI_Abort(MPI_COMM_WORLD, 2);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  if (sp_setup(NULL) != 0 || sp_flush_on_signal(SIGUSR1) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  exchange(rank, half, dup);
  for (int i = 0; i < PAD; i++) {
    sp_start_name("pad");
    sp_stop_name("pad");
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  if (killed) {
    char ready[4200];
    snprintf(ready, sizeof ready, "%s.ready.%d", argv[1], rank);
    FILE *f = fopen(ready, "w"); /* its pid: waits_merge.py kills each rank */
    if (f) fprintf(f, "%ld\n", (long)getpid());
    if (f) fclose(f);
    for (;;) {
      struct timespec ts = {0, 100000000};
      nanosleep(&ts, NULL); /* killed here, sp_finalize never runs */
    }
  }
  /* The flush's spill record takes a calibration point of the TSC only a
   * second or more after the last (docs/design.md, "Clock"): without one
   * the merge converts this short run's ticks from the setup's point alone
   * and its stamps stray from the finalized file's by tens of us, while with
   * one both convert alike, as waits_merge.py's 10-us comparison needs. */
  struct timespec calib = {1, 100000000};
  nanosleep(&calib, NULL);
  raise(SIGUSR1);
  sp_start_name("flushed");
  sp_stop_name("flushed");
  PMPI_Barrier(MPI_COMM_WORLD);
  int rc = keep_spills(argv[1]);
  PMPI_Barrier(MPI_COMM_WORLD);
  if (sp_finalize() != 0) rc = -1;
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return rc != 0;
}
