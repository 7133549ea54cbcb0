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
 * SIGKILLs ranks during their drain.
 *
 * SP_TEST_CUT="R:WHAT,..." cuts rank R's exit drain: WHAT is h (the
 * spill file's header record) or eK (its K-th EVENTS record). That write
 * goes out 8 bytes only, then the rank SIGKILLs itself: a kill in the
 * middle of a write. Before every spill record a rank notes in
 * cut.rank<R> "B A": the calls in whole EVENTS records so far, and with
 * the record being written: a merge then finds B (or A, if the launcher
 * killed it after that write) calls of the rank. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

static void all_at_exit(void) { MPI_Barrier(MPI_COMM_WORLD); }

/* ---- SP_TEST_CUT: this program's writev() stands in for libc's ---- */

#define SPILL_MAGIC 0x31525053u /* spill_format.h */
#define SPILL_HEADER 1u
#define SPILL_EVENTS 4u

static char cut_what = 0; /* 'h' or 'e': armed */
static int cut_k, events_seen, note_fd = -1;
static long long whole_calls;

static void cut_arm(void) {
  const char *spec = getenv("SP_TEST_CUT");
  for (const char *p = spec; p && *p;) {
    int r = atoi(p);
    const char *c = strchr(p, ':');
    if (!c) break;
    if (r == rank) {
      cut_what = c[1];
      cut_k = cut_what == 'e' ? atoi(c + 2) : 0;
    }
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  char path[64];
  snprintf(path, sizeof path, "cut.rank%d", rank);
  note_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

__attribute__((visibility("default"))) ssize_t writev(int fd, const struct iovec *iov, int n);
ssize_t writev(int fd, const struct iovec *iov, int n) {
  const uint32_t *head = n == 4 && iov[0].iov_len >= 16 ? iov[0].iov_base : NULL;
  if (!head || head[0] != SPILL_MAGIC || note_fd < 0) /* not a spill record: MPI's own */
    return (ssize_t)syscall(SYS_writev, fd, iov, n);
  long long calls = 0;
  int cut = cut_what == 'h' && head[1] == SPILL_HEADER;
  if (head[1] == SPILL_EVENTS) {
    calls = *(const int64_t *)((const char *)iov[1].iov_base + 8);
    cut = cut_what == 'e' && ++events_seen == cut_k;
  }
  char text[64];
  int len = snprintf(text, sizeof text, "%20lld %20lld\n", whole_calls, whole_calls + calls);
  if (pwrite(note_fd, text, (size_t)len, 0) != len) _exit(7);
  if (cut) {
    struct iovec some = {iov[0].iov_base, 8};
    syscall(SYS_writev, fd, &some, 1);
    raise(SIGKILL);
  }
  ssize_t w = (ssize_t)syscall(SYS_writev, fd, iov, n);
  if (w > 0) whole_calls += calls;
  return w;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  atexit(drained);
  cut_arm();
  if (argc < 3 || sp_setup(NULL) != 0) return 1;
  /* Registered after sp_setup, so run before the library's exit drain:
   * with cuts, every rank starts its drain at the same time. */
  if (getenv("SP_TEST_CUT")) atexit(all_at_exit);
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
