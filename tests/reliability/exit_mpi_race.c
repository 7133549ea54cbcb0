/* exit_mpi_race.c - ranks that call exit() without sp_finalize or
 * MPI_Finalize, with nothing holding the others back: as soon as one rank
 * has ended, mpirun tears the rest down, some in the middle of their exit
 * drain (issue 36 item 8; exit_race.py runs it and checks the merge).
 *
 *   exit_mpi_race MODE PAIRS
 *     together  every rank records PAIRS calls of "r", then exit()
 *     early     rank 0 exits after PAIRS / 10 calls; the others record
 *               PAIRS, then exit() (they may be killed while recording)
 *
 * A rank writes done.rank<R> ("<calls>") from an atexit handler registered
 * before sp_setup, so after the library's exit drain: a rank with that
 * file finished its drain, and its spill file must hold every call. A rank
 * writes exiting.rank<R> ("<pid>") just before exit(), for a test that
 * SIGKILLs ranks during their drain. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_profiler.h"

static int rank;
static long long recorded;

static void note(const char *what, long long value) {
  char path[64], tmp[80], text[32];
  snprintf(path, sizeof path, "%s.rank%d", what, rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  snprintf(text, sizeof text, "%lld\n", value);
  fputs(text, f);
  fclose(f);
  rename(tmp, path); /* whole or absent */
}

static void drained(void) { note("done", recorded); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  atexit(drained);
  if (argc < 3 || sp_setup(NULL) != 0) return 1;
  const int early = strcmp(argv[1], "early") == 0;
  long long n = atoll(argv[2]);
  if (early && rank == 0) n /= 10;
  int h = sp_region("r");
  MPI_Barrier(MPI_COMM_WORLD); /* all recording before the first exit */
  for (long long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
    recorded++;
  }
  note("exiting", (long long)getpid());
  exit(0);
}
