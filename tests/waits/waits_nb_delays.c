/* waits_nb_delays.c - Late Senders of nonblocking receives, with delays
 * built in, for check_waits_nb.py (issue 50). On 3 ranks, rank 0 receives
 * in every phase (each in a region of its own); the senders sleep in a
 * region of their own (rank 1: slow_a, rank 2: slow_b) before sending,
 * while rank 0, after a short settle, waits:
 *   phase_wait     MPI_Irecv + MPI_Wait from rank 1;
 *   phase_waitall  three MPI_Irecv (tags 2, 3, 4; ranks 1, 2, 1) and one
 *                  MPI_Waitall: the latest sender (rank 2) is its wait;
 *   phase_waitany  two MPI_Irecv (ranks 1 and 2, tag 5), two MPI_Waitany;
 *   phase_testsome two MPI_Irecv completed by an MPI_Testsome loop;
 *   phase_test     MPI_ANY_SOURCE, MPI_ANY_TAG, completed by an MPI_Test loop;
 *   phase_any      MPI_ANY_SOURCE, MPI_ANY_TAG + MPI_Wait (rank 2 sends tag 11);
 *   phase_split    on MPI_Comm_split(world, rank != 1): rank 0 receives
 *                  from its sub-communicator's rank 1 (world rank 2);
 *   phase_persist  MPI_Recv_init, twice MPI_Start + MPI_Wait; rank 1 sends
 *                  with MPI_Send_init + MPI_Start + MPI_Wait.
 * A sync barrier separates the phases. Each rank stamps CLOCK_MONOTONIC
 * (the profiler's clock) around its waits and before its sends; after
 * sp_finalize rank 0 writes the Late Sender each path must show, from the
 * program's own stamps, to argv[1] (tab-separated):
 *   late_sender 0 PATH SECONDS CAUSE_RANK CAUSE_REGION ("-": none asked) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "scope_profiler.h"

enum { SETTLE_US = 20000, MAXW = 64 };

static long long now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void usleep_(int us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {}
}

/* The senders' stamps: send start per (phase, slot). */
enum { P_WAIT, P_WAITALL, P_WAITANY, P_TESTSOME, P_TEST, P_ANY, P_SPLIT, P_PERSIST, NPH };
static long long sent_[2][NPH][2]; /* [0]: send start; [1]: its delay's start */

/* Rank 0's completing calls: in, out, and which sends (phase, slot) they completed. */
typedef struct wcall {
  const char *path;
  long long in, out;
  int ph[3], slot[3], n;
} wcall_t;
static wcall_t w_[MAXW];
static int nw_;

static void slow(int rank, int us) {
  sp_start_name(rank == 1 ? "slow_a" : "slow_b");
  usleep_(us);
  sp_stop_name(rank == 1 ? "slow_a" : "slow_b");
}

static void sync_all(void) {
  sp_start_name("sync");
  MPI_Barrier(MPI_COMM_WORLD);
  sp_stop_name("sync");
}

/* Rank 0 noting a completing call: what it completed, by sender. */
static wcall_t *note(const char *path, long long in, long long out) {
  wcall_t *c = &w_[nw_++];
  *c = (wcall_t){path, in, out, {0}, {0}, 0};
  return c;
}
static void got(wcall_t *c, int ph, int slot) {
  c->ph[c->n] = ph;
  c->slot[c->n++] = slot;
}

/* The senders: rank `who` sleeps us in its region, stamps, sends. */
static void send_late(int rank, int who, int us, int ph, int slot, int dest, int tag,
                      MPI_Comm comm) {
  if (rank != who) return;
  int x = rank;
  sent_[1][ph][slot] = now();
  slow(rank, us);
  sent_[0][ph][slot] = now();
  MPI_Send(&x, 1, MPI_INT, dest, tag, comm);
}

static void receiver_basic(int *buf) {
  MPI_Request rq[3];
  MPI_Status st[3];
  long long a;
  sp_start_name("phase_wait");
  MPI_Irecv(&buf[0], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[0]);
  usleep_(SETTLE_US);
  a = now();
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  got(note("phase_wait/MPI_Wait", a, now()), P_WAIT, 0);
  sp_stop_name("phase_wait");
  sync_all();
  sp_start_name("phase_waitall");
  MPI_Irecv(&buf[0], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(&buf[1], 1, MPI_INT, 2, 3, MPI_COMM_WORLD, &rq[1]);
  MPI_Irecv(&buf[2], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq[2]);
  usleep_(SETTLE_US);
  a = now();
  MPI_Waitall(3, rq, st);
  wcall_t *c = note("phase_waitall/MPI_Waitall", a, now());
  got(c, P_WAITALL, 0); /* rank 1's tag 4 (its tag 2 went at once) */
  got(c, P_WAITALL, 1); /* rank 2's tag 3 */
  sp_stop_name("phase_waitall");
  sync_all();
  sp_start_name("phase_waitany");
  MPI_Irecv(&buf[0], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(&buf[1], 1, MPI_INT, 2, 5, MPI_COMM_WORLD, &rq[1]);
  usleep_(SETTLE_US);
  for (int k = 0; k < 2; k++) {
    int idx;
    a = now();
    MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
    got(note("phase_waitany/MPI_Waitany", a, now()), P_WAITANY, idx);
  }
  sp_stop_name("phase_waitany");
}

static void receiver_tests(int *buf) {
  MPI_Request rq[2];
  sp_start_name("phase_testsome");
  MPI_Irecv(&buf[0], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(&buf[1], 1, MPI_INT, 2, 6, MPI_COMM_WORLD, &rq[1]);
  for (int left = 2; left > 0;) {
    int done, idx[2];
    long long a = now();
    MPI_Testsome(2, rq, &done, idx, MPI_STATUSES_IGNORE);
    long long b = now();
    if (done == MPI_UNDEFINED || done == 0) continue;
    wcall_t *c = note("phase_testsome/MPI_Testsome", a, b);
    for (int j = 0; j < done; j++) got(c, P_TESTSOME, idx[j]);
    left -= done;
  }
  sp_stop_name("phase_testsome");
  sync_all();
  sp_start_name("phase_test");
  MPI_Irecv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
  for (int flag = 0; !flag;) {
    long long a = now();
    MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    if (flag) got(note("phase_test/MPI_Test", a, now()), P_TEST, 0);
  }
  sp_stop_name("phase_test");
}

static void receiver_more(int *buf, MPI_Comm sub) {
  MPI_Request rq;
  MPI_Status st;
  long long a;
  sp_start_name("phase_any");
  MPI_Irecv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
  usleep_(SETTLE_US);
  a = now();
  MPI_Wait(&rq, &st);
  got(note("phase_any/MPI_Wait", a, now()), P_ANY, 0);
  sp_stop_name("phase_any");
  sync_all();
  sp_start_name("phase_split");
  MPI_Irecv(&buf[0], 1, MPI_INT, 1, 13, sub, &rq);
  usleep_(SETTLE_US);
  a = now();
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  got(note("phase_split/MPI_Wait", a, now()), P_SPLIT, 0);
  sp_stop_name("phase_split");
  sync_all();
  sp_start_name("phase_persist");
  MPI_Recv_init(&buf[0], 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &rq);
  for (int k = 0; k < 2; k++) {
    MPI_Start(&rq);
    usleep_(SETTLE_US);
    a = now();
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    got(note("phase_persist/MPI_Wait", a, now()), P_PERSIST, k);
    MPI_Barrier(MPI_COMM_WORLD); /* the second round starts together */
  }
  MPI_Request_free(&rq);
  sp_stop_name("phase_persist");
}

static void senders(int rank, MPI_Comm sub) {
  int x = rank;
  /* phase_wait */
  send_late(rank, 1, 100000, P_WAIT, 0, 0, 1, MPI_COMM_WORLD);
  sync_all();
  if (rank == 1) { /* phase_waitall: tag 2 at once, tag 4 after 60 ms */
    MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    send_late(rank, 1, 60000, P_WAITALL, 0, 0, 4, MPI_COMM_WORLD);
  }
  send_late(rank, 2, 120000, P_WAITALL, 1, 0, 3, MPI_COMM_WORLD);
  sync_all();
  send_late(rank, 1, 50000, P_WAITANY, 0, 0, 5, MPI_COMM_WORLD);
  send_late(rank, 2, 110000, P_WAITANY, 1, 0, 5, MPI_COMM_WORLD);
  sync_all();
  send_late(rank, 1, 40000, P_TESTSOME, 0, 0, 6, MPI_COMM_WORLD);
  send_late(rank, 2, 90000, P_TESTSOME, 1, 0, 6, MPI_COMM_WORLD);
  sync_all();
  send_late(rank, 2, 60000, P_TEST, 0, 0, 9, MPI_COMM_WORLD);
  sync_all();
  send_late(rank, 2, 80000, P_ANY, 0, 0, 11, MPI_COMM_WORLD);
  sync_all();
  send_late(rank, 2, 70000, P_SPLIT, 0, 0, 13, sub); /* rank 0 of sub is world 0 */
  sync_all();
  MPI_Request rq = MPI_REQUEST_NULL;
  if (rank == 1) MPI_Send_init(&x, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &rq);
  for (int k = 0; k < 2; k++) {
    if (rank == 1) {
      sent_[1][P_PERSIST][k] = now();
      slow(rank, 60000 + 30000 * k);
      sent_[0][P_PERSIST][k] = now();
      MPI_Start(&rq);
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 1) MPI_Request_free(&rq);
}

/* Rank 0: the expected Late Sender per path, from the stamps of all. */
static int write_expected(const char *path, const long long *all) {
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  const char *paths[MAXW];
  int np = 0;
  for (int i = 0; i < nw_; i++) {
    int seen = 0;
    for (int j = 0; j < np; j++) seen |= strcmp(paths[j], w_[i].path) == 0;
    if (!seen) paths[np++] = w_[i].path;
  }
  for (int j = 0; j < np; j++) {
    long long sum = 0;
    int crank = -1, slot_max = 0, in_slow = 0, slow_max = 0;
    long long best = 0;
    for (int i = 0; i < nw_; i++) {
      if (strcmp(w_[i].path, paths[j]) != 0) continue;
      long long late = 0; /* the largest over what it completed */
      for (int m = 0; m < w_[i].n; m++) {
        int ph = w_[i].ph[m], sl = w_[i].slot[m];
        int who = ph == P_WAITALL                       ? 1 + sl
                  : ph == P_WAITANY || ph == P_TESTSOME ? 1 + sl
                  : ph == P_PERSIST || ph == P_WAIT     ? 1
                                                        : 2;
        const long long *st = &all[(size_t)who * NPH * 4 + (size_t)ph * 2 + sl];
        long long l = st[0] - w_[i].in, d = w_[i].out - w_[i].in;
        l = l < 0 ? 0 : l < d ? l : d;
        if (l > late) late = l, slot_max = who, slow_max = w_[i].in >= st[NPH * 2];
      }
      sum += late;
      if (late > best) best = late, crank = slot_max, in_slow = slow_max;
    }
    /* A cause is asked only of a wait long enough not to be noise, which
     * started when its sender was in its delay (on a loaded node a sender
     * can leave the sync barrier late: then it was still in that). */
    int ask = best > 5000000 && in_slow;
    fprintf(f, "late_sender\t0\t%s\t%.9f\t%d\t%s\n", paths[j], sum / 1e9, ask ? crank : -1,
            ask ? (crank == 1 ? "slow_a" : "slow_b") : "-");
  }
  return fclose(f) != 0;
}

int main(int argc, char **argv) {
  int rank, n, buf[3];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 3 || argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank != 1, rank, &sub);
  sync_all();
  if (rank == 0) {
    receiver_basic(buf);
    sync_all();
    receiver_tests(buf);
    sync_all();
    receiver_more(buf, sub);
  } else {
    senders(rank, sub);
  }
  sync_all();
  int rc = sp_finalize();
  long long all[3 * NPH * 4];
  PMPI_Gather(sent_, NPH * 4, MPI_LONG_LONG, all, NPH * 4, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0 && write_expected(argv[1], all) != 0) rc = 1;
  MPI_Comm_free(&sub);
  MPI_Finalize();
  return rc != 0;
}
