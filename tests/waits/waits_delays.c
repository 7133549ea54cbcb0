/* waits_delays.c - MPI wait states with delays built in, for
 * check_waits.py (issue 50). On 4 ranks, each phase in a region of its
 * own, the delayed rank sleeping D in a named region while the others
 * enter the call after a short settle (so the delayed rank is inside its
 * region when they start to wait):
 *   phase_ls     rank 1 sends tag 6 at once, then late_send_work, then tag 5
 *                to rank 0, which receives tag 5 first (Late Sender); rank 3
 *                MPI_Isend's tag 7 to rank 2 at once, then after
 *                late_send_work MPI_Send's tag 7 again (one channel fed by
 *                two regions), which rank 2 receives second, with
 *                MPI_ANY_SOURCE and MPI_ANY_TAG (Late Sender);
 *   phase_lr     rank 0 MPI_Ssend's to rank 1, which receives after
 *                late_recv_work (Late Receiver);
 *   phase_bar    MPI_Barrier(world) after rank 2's barrier_work;
 *   phase_nxn    MPI_Allreduce on MPI_Comm_split(world, rank % 2): rank 0
 *                (even) and rank 3 (odd) late in allreduce_work;
 *   phase_bcast  MPI_Bcast root 1 after the root's bcast_work;
 *   phase_reduce MPI_Reduce root 0, rank 3 late in reduce_work;
 *   phase_sr     MPI_Sendrecv around a ring (to rank + 1, from rank - 1: two
 *                partners), rank 1 late in sendrecv_work (Late Sender at
 *                rank 2);
 *   phase_shift  MPI_Sendrecv along an open chain (rank 3 sends to and rank
 *                0 receives from MPI_PROC_NULL), rank 2 late in shift_work
 *                (Late Sender at rank 3). Nothing may be left unpaired.
 * A sync barrier (region sync) separates the phases. Each rank stamps
 * CLOCK_MONOTONIC (the profiler's clock) around its calls and its delay; after
 * sp_finalize rank 0 gathers the stamps and writes the waits the phases
 * must show, from the program's own stamps, to argv[1]:
 *   state rank path seconds cause_rank cause_region seconds_hi   (tab-separated)
 * seconds_hi: the same wait with the cause's call entered as late as its own
 * exit stamp (check_waits.py takes the interval). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "scope_profiler.h"

enum { N = 4, SETTLE_US = 20000 };
static const int D_US = 150000;

static long long now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Stamps of this rank: enter and exit of the phases' calls. */
enum { LS, LR, BAR, NXN, BCAST, REDUCE, SR, SHIFT, LS0, NPH }; /* LS0: phase_ls's first message */
static long long in_[NPH], out_[NPH], work_[NPH]; /* work_: start of the delay */

static void usleep_(int us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {}
}

static void work(int ph, const char *region, int us) {
  work_[ph] = now();
  sp_start_name(region);
  usleep_(us);
  sp_stop_name(region);
}

static void sync_all(void) {
  sp_start_name("sync");
  MPI_Barrier(MPI_COMM_WORLD);
  sp_stop_name("sync");
}

#define STAMPED(ph, call) \
  do {                    \
    in_[ph] = now();      \
    call;                 \
    out_[ph] = now();     \
  } while (0)

static void phases(int rank, MPI_Comm half) {
  int x = rank, y = 0;
  sp_start_name("phase_ls");
  if (rank == 1) {
    MPI_Send(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
    work(LS, "late_send_work", D_US);
    STAMPED(LS, MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
  } else if (rank == 3) {
    MPI_Request rq;
    STAMPED(LS0, MPI_Isend(&x, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &rq));
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    work(LS, "late_send_work", D_US);
    STAMPED(LS, MPI_Send(&x, 1, MPI_INT, 2, 7, MPI_COMM_WORLD));
  } else if (rank == 0) {
    usleep_(SETTLE_US);
    STAMPED(LS, MPI_Recv(&y, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Recv(&y, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    usleep_(SETTLE_US);
    STAMPED(LS0, MPI_Recv(&y, 1, MPI_INT, 3, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    STAMPED(LS, MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  }
  sp_stop_name("phase_ls");
  sync_all();
  sp_start_name("phase_lr");
  if (rank == 0) {
    usleep_(SETTLE_US);
    STAMPED(LR, MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
  }
  if (rank == 1) {
    work(LR, "late_recv_work", D_US);
    STAMPED(LR, MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  sp_stop_name("phase_lr");
  sync_all();
  sp_start_name("phase_bar");
  if (rank == 2)
    work(BAR, "barrier_work", D_US);
  else
    usleep_(SETTLE_US);
  STAMPED(BAR, MPI_Barrier(MPI_COMM_WORLD));
  sp_stop_name("phase_bar");
  sync_all();
  sp_start_name("phase_nxn");
  if (rank == 0 || rank == 3)
    work(NXN, "allreduce_work", D_US);
  else
    usleep_(SETTLE_US);
  STAMPED(NXN, MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half));
  sp_stop_name("phase_nxn");
  sync_all();
  sp_start_name("phase_bcast");
  if (rank == 1)
    work(BCAST, "bcast_work", D_US);
  else
    usleep_(SETTLE_US);
  STAMPED(BCAST, MPI_Bcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD));
  sp_stop_name("phase_bcast");
  sync_all();
  sp_start_name("phase_reduce");
  if (rank == 3)
    work(REDUCE, "reduce_work", D_US);
  else
    usleep_(SETTLE_US);
  STAMPED(REDUCE, MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
  sp_stop_name("phase_reduce");
  sync_all();
  sp_start_name("phase_sr");
  if (rank == 1)
    work(SR, "sendrecv_work", D_US);
  else
    usleep_(SETTLE_US);
  STAMPED(SR, MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % N, 8, &y, 1, MPI_INT, (rank + N - 1) % N, 8,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  sp_stop_name("phase_sr");
  sync_all();
  sp_start_name("phase_shift");
  if (rank == 2)
    work(SHIFT, "shift_work", D_US);
  else
    usleep_(SETTLE_US);
  STAMPED(SHIFT, MPI_Sendrecv(&x, 1, MPI_INT, rank + 1 < N ? rank + 1 : MPI_PROC_NULL, 9, &y, 1,
                              MPI_INT, rank > 0 ? rank - 1 : MPI_PROC_NULL, 9, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
  sp_stop_name("phase_shift");
  sync_all();
}

static double capped(long long from, long long to, long long end) {
  long long late = to - from, d = end - from;
  return (late < d ? late : d) / 1e9;
}

/* All ranks' stamps: [rank * NPH + phase]. */
typedef struct stamps {
  long long in[N * NPH], out[N * NPH], work[N * NPH];
} stamps_t;

/* One expected wait of rank r in phase ph until `until`, caused by rank c's
 * delay in region: the cause region is named only when r started waiting
 * after c started the delay (on an oversubscribed node a rank can leave the
 * sync barrier late; then c was elsewhere and "-" asks nothing). The last
 * rank itself expects 0 (until is its own entry). */
static void row_plus(FILE *f, const stamps_t *t, const char *state, int r, const char *path, int ph,
                     int c, long long until, const char *region, int ph0) {
  long long in = t->in[r * NPH + ph], out = t->out[r * NPH + ph];
  /* The profiler stamps c's call inside the call, between c's own stamps
   * around it: a rank descheduled between its stamp and the call's (ms on
   * a loaded node) starts the call later than `until` says. c's exit
   * bounds it from above (an eager send or the last arrival returns at
   * once); a rank's wait for itself has no such slack. */
  long long until_hi = c == r ? until : t->out[c * NPH + ph];
  double lo = capped(in, until, out), hi = capped(in, until_hi, out);
  const char *named = in >= t->work[c * NPH + ph] && (ph0 < 0 || lo > 0) ? region : "-";
  if (ph0 >= 0) { /* an earlier call of the same path waits too when c comes late (loaded node) */
    long long in0 = t->in[r * NPH + ph0], out0 = t->out[r * NPH + ph0];
    double lo0 = capped(in0, t->in[c * NPH + ph0], out0),
           hi0 = capped(in0, t->out[c * NPH + ph0], out0);
    lo = (lo > 0 ? lo : 0) + (lo0 > 0 ? lo0 : 0);
    hi = (hi > 0 ? hi : 0) + (hi0 > 0 ? hi0 : 0);
  }
  fprintf(f, "%s\t%d\t%s\t%.9f\t%d\t%s\t%.9f\n", state, r, path, lo, c, named, hi);
}

static void row(FILE *f, const stamps_t *t, const char *state, int r, const char *path, int ph,
                int c, long long until, const char *region) {
  row_plus(f, t, state, r, path, ph, c, until, region, -1);
}

static void expect(FILE *f, const stamps_t *t) {
#define I(r, ph) t->in[(r)*NPH + (ph)]
  row(f, t, "late_sender", 0, "phase_ls/MPI_Recv", LS, 1, I(1, LS), "late_send_work");
  row_plus(f, t, "late_sender", 2, "phase_ls/MPI_Recv", LS, 3, I(3, LS), "late_send_work", LS0);
  row(f, t, "late_receiver", 0, "phase_lr/MPI_Ssend", LR, 1, I(1, LR), "late_recv_work");
  /* N x N and Barrier: every member waits for the last to enter, which is
   * the delayed rank unless the node's load made another later still. */
  int bar_last = 0, even_last = I(2, NXN) > I(0, NXN) ? 2 : 0,
      odd_last = I(1, NXN) > I(3, NXN) ? 1 : 3;
  for (int r = 1; r < N; r++)
    if (I(r, BAR) > I(bar_last, BAR)) bar_last = r;
  for (int r = 0; r < N; r++) {
    row(f, t, "wait_barrier", r, "phase_bar/MPI_Barrier", BAR, bar_last, I(bar_last, BAR),
        bar_last == 2 ? "barrier_work" : "-");
    int last = r % 2 == 0 ? even_last : odd_last;
    row(f, t, "wait_nxn", r, "phase_nxn/MPI_Allreduce", NXN, last, I(last, NXN),
        last == 0 || last == 3 ? "allreduce_work" : "-");
    if (r != 1)
      row(f, t, "late_broadcast", r, "phase_bcast/MPI_Bcast", BCAST, 1, I(1, BCAST), "bcast_work");
  }
  int lr = 1;
  for (int r = 2; r < N; r++)
    if (I(r, REDUCE) > I(lr, REDUCE)) lr = r;
  row(f, t, "early_reduce", 0, "phase_reduce/MPI_Reduce", REDUCE, lr, I(lr, REDUCE),
      lr == 3 ? "reduce_work" : "-");
  /* Sendrecv: each receive half waits for its sender's entry (its send half
   * goes out eagerly at once) */
  for (int r = 0; r < N; r++) {
    int c = (r + N - 1) % N;
    row(f, t, "late_sender", r, "phase_sr/MPI_Sendrecv", SR, c, I(c, SR),
        c == 1 ? "sendrecv_work" : "-");
    if (r > 0)
      row(f, t, "late_sender", r, "phase_shift/MPI_Sendrecv", SHIFT, r - 1, I(r - 1, SHIFT),
          r - 1 == 2 ? "shift_work" : "-");
  }
  fprintf(f, "unpaired\tnot_recorded\t0\nunpaired\tpartner_not_recorded\t0\n");
#undef I
}

int main(int argc, char **argv) {
  int rank, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != N || argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  phases(rank, half);
  int rc = sp_finalize();
  static stamps_t t;
  PMPI_Gather(in_, NPH, MPI_LONG_LONG, t.in, NPH, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  PMPI_Gather(out_, NPH, MPI_LONG_LONG, t.out, NPH, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  PMPI_Gather(work_, NPH, MPI_LONG_LONG, t.work, NPH, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    FILE *f = fopen(argv[1], "w");
    if (!f) rc = 1;
    if (f) expect(f, &t);
    if (f && fclose(f) != 0) rc = 1;
  }
  MPI_Comm_free(&half);
  MPI_Finalize();
  return rc != 0;
}
