/* clock_app.c - the MPI program behind the multi-node clock tests
 * (run_nodes.sh, check_clock.py):
 *
 *   clock_app write PATH   MPI_Init, sp_setup, barrier, then 11 calls of
 *                          "sync" at once (the first starts right after the
 *                          barrier on every rank), 5 of "work"; finalize.
 *   clock_app early PATH   the same with sp_setup before MPI_Init, so the
 *                          first clock measurement runs inside MPI_Init.
 *   clock_app kill PATH    as write, with buffer_limit 10, then SIGKILLs
 *                          itself: only the spill files hold the run.
 *   clock_app late PATH    as write, but ranks other than 0 call sp_setup
 *                          4 s after rank 0 (run with
 *                          SCOPE_PROFILER_FINALIZE_TIMEOUT=2): the setup
 *                          measurement gives up on them, nothing hangs.
 *
 * Prints "rank R host H" on each rank. */
#define _DEFAULT_SOURCE /* gethostname, nanosleep under -std=c11 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"

static int setup(const char *path, long limit) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = limit;
  return sp_setup(&c);
}

static void calls(const char *name, int n, long nap_ns) {
  int h = sp_region(name);
  for (int i = 0; i < n; i++) {
    sp_start(h);
    struct timespec ts = {0, nap_ns};
    if (nap_ns) nanosleep(&ts, NULL);
    sp_stop(h);
  }
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "write") && strcmp(argv[1], "early") &&
                    strcmp(argv[1], "kill") && strcmp(argv[1], "late"))) {
    fprintf(stderr, "usage: clock_app write|early|kill|late PATH\n");
    return 2;
  }
  const int early = !strcmp(argv[1], "early"), kill_it = !strcmp(argv[1], "kill");
  int rc = early ? setup(argv[2], 100000) : 0;
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!strcmp(argv[1], "late") && rank != 0) sleep(4);
  if (!early) rc = setup(argv[2], kill_it ? 10 : 100000);
  if (rc != 0) return 1;
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  printf("rank %d host %s\n", rank, host);
  fflush(stdout);
  int sync = sp_region("sync");
  MPI_Barrier(MPI_COMM_WORLD);
  sp_start(sync);
  sp_stop(sync);
  calls("sync", 10, 0); /* with buffer_limit 10 the 11th start flushes the first */
  calls("work", 5, 1000000);
  MPI_Barrier(MPI_COMM_WORLD);
  if (kill_it) raise(SIGKILL);
  rc = sp_finalize();
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
