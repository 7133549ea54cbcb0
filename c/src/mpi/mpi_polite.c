/* mpi_polite.c - finalize's exchanges between ranks where a node runs more
 * ranks than it has cores. A rank spinning inside MPI there takes the CPU
 * from rank 0 creating the layout and from ranks still writing their data,
 * so these wait by sleeping. They use point-to-point messages through
 * rank 0 rather than collectives: a nonblocking collective advances only
 * while its ranks call into MPI, so with sleeping ranks each of its
 * log2(size) rounds waits for some rank to wake up, and a blocking one
 * spins. Here a rank waits only for its own messages, and small sends
 * complete without the receiver. */
#include "mpi_polite.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Tags on finalize's private communicator, one per kind of message, so a
 * message can never be taken for another kind. */
enum { TAG_MIN = 7301 };

/* A waiting rank sleeps 1/8 of the time it has waited so far, at least
 * 20 us: the end of a wait is seen at most 12.5% (and 20 us) late, and a
 * long wait wakes a rank about 8.5 times per e-fold of its length. The
 * sleeps used to double from 20 us to 4 ms first: a rank then saw a wait's
 * end up to 100% late, and finalize's 25 or so exchanges through rank 0
 * passed that lateness on from one to the next (each side's sleep grew
 * while the other slept), 10-40 ms per exchange even with every rank
 * there: 0.2 s of a 4-rank columnar finalize (docs/performance.md, "the
 * columnar finalize's fixed cost"). The longest sleep is 0.5 ms per rank
 * sharing a CPU (4 to 100 ms): hundreds of ranks waking every 4 ms took
 * about half of the CPUs from rank 0, and 1 ms sleeps slowed its layout
 * by 60% at 128 ranks on 2 cores; longer is not better: 2 ms per rank
 * sharing a CPU slowed the layout again. Figures: docs/performance.md,
 * "finalize at scale" ("Metadata"), and "Figures behind design choices in
 * the code". */
enum { FIRST_NS = 20000, SHORTEST_CAP_NS = 4000000, MAX_NS = 100000000 };
static long sp_longest_sleep_ns = SHORTEST_CAP_NS;

void sp__mpi_polite_set_crowding(int ranks_per_cpu) {
  long ns = (long)ranks_per_cpu * 500000;
  sp_longest_sleep_ns = ns < SHORTEST_CAP_NS ? SHORTEST_CAP_NS : ns > MAX_NS ? MAX_NS : ns;
}

static int64_t sp_polite_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long sp__mpi_polite_nap_ns(int64_t waited_ns, long longest_ns) {
  int64_t ns = waited_ns / 8;
  return ns < FIRST_NS ? FIRST_NS : ns > longest_ns ? longest_ns : (long)ns;
}

int sp__mpi_polite_waitall(int n, MPI_Request *reqs, MPI_Status *statuses) {
  const int64_t start = sp_polite_now_ns();
  for (;;) {
    int done = 0;
    int rc = MPI_Testall(n, reqs, &done, statuses);
    if (rc != MPI_SUCCESS || done) return rc;
    /* The time waited by the clock, not the sleeps asked for: under load a
     * sleep lasts longer than asked. */
    struct timespec ts = {0,
                          sp__mpi_polite_nap_ns(sp_polite_now_ns() - start, sp_longest_sleep_ns)};
    nanosleep(&ts, NULL);
  }
}

/* Receives one value of type t with tag from any rank; its sender in *from. */
static int sp_recv_any(MPI_Comm comm, void *value, MPI_Datatype t, int tag, int *from) {
  MPI_Request r;
  MPI_Status st;
  int err = MPI_Irecv(value, 1, t, MPI_ANY_SOURCE, tag, comm, &r);
  if (err == MPI_SUCCESS) err = sp__mpi_polite_waitall(1, &r, &st);
  if (err == MPI_SUCCESS) *from = st.MPI_SOURCE;
  return err;
}

/* Sends count values from buf to rank `to` and waits until sent. */
int sp__mpi_polite_send(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, int to,
                        int tag) {
  MPI_Request r;
  int err = MPI_Isend(buf, count, t, to, tag, comm, &r);
  return err == MPI_SUCCESS ? sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE) : err;
}

/* A rank other than 0 sends mine to rank 0 (tag up) and waits for its
 * answer (tag down). Receiving is posted first, so the answer never waits
 * for a receive. */
static int sp_ask_root(MPI_Comm comm, const int *mine, int up, int *answer, int down) {
  MPI_Request r[2];
  int err = MPI_Irecv(answer, 1, MPI_INT, 0, down, comm, &r[0]);
  if (err == MPI_SUCCESS) err = MPI_Isend(mine, 1, MPI_INT, 0, up, comm, &r[1]);
  return err == MPI_SUCCESS ? sp__mpi_polite_waitall(2, r, MPI_STATUSES_IGNORE) : err;
}

/* Rank 0 sends answer to every other rank (tag down). */
static int sp_answer_all(MPI_Comm comm, int size, const int *answer, int down) {
  int err = MPI_SUCCESS;
  for (int i = 1; i < size && err == MPI_SUCCESS; i++)
    err = sp__mpi_polite_send(comm, answer, 1, MPI_INT, i, down);
  return err;
}

int sp__mpi_polite_min(MPI_Comm comm, int rank, int size, int rc, int *worst) {
  return sp__mpi_polite_min_then(comm, rank, size, rc, worst, NULL, NULL);
}

int sp__mpi_polite_min_then(MPI_Comm comm, int rank, int size, int rc, int *worst,
                            int (*root_then)(void *), void *arg) {
  *worst = rc;
  if (rank != 0) return sp_ask_root(comm, &rc, TAG_MIN, worst, TAG_MIN);
  /* One message at a time, from whichever rank sent it: nothing to
   * allocate, and no rank can send for the next agreement before all have
   * sent for this one. */
  int err = MPI_SUCCESS;
  for (int i = 1; i < size && err == MPI_SUCCESS; i++) {
    int theirs = 0, from;
    err = sp_recv_any(comm, &theirs, MPI_INT, TAG_MIN, &from);
    if (err == MPI_SUCCESS && theirs < *worst) *worst = theirs;
  }
  if (err == MPI_SUCCESS && *worst == 0 && root_then) *worst = root_then(arg);
  return err == MPI_SUCCESS ? sp_answer_all(comm, size, worst, TAG_MIN) : err;
}

/* Rank 0: the next message with tag from any rank, matched (taken off the
 * queue, so it cannot be matched twice) into *msg, its sender and length
 * in *st; sleeping between probes as sp__mpi_polite_waitall does. */
static int sp_probe_any(MPI_Comm comm, int tag, MPI_Message *msg, MPI_Status *st) {
  const int64_t start = sp_polite_now_ns();
  for (;;) {
    int found = 0;
    int rc = MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &found, msg, st);
    if (rc != MPI_SUCCESS || found) return rc;
    struct timespec ts = {0,
                          sp__mpi_polite_nap_ns(sp_polite_now_ns() - start, sp_longest_sleep_ns)};
    nanosleep(&ts, NULL);
  }
}

/* Rank 0's side of sp__mpi_polite_gather: each blob as it comes, whatever
 * its sender, into a piece of its own, then all in rank order. Without
 * memory for a blob it is still received (truncated to nothing), so that
 * its sender is not left waiting, and MPI_ERR_NO_MEM returned. */
static int sp_gather_at_root(MPI_Comm comm, int size, const char *blob, int len, int tag,
                             char **all, int64_t **offs) {
  int64_t *o = calloc((size_t)size + 1, sizeof *o);
  char **part = calloc((size_t)size, sizeof *part);
  int err = MPI_SUCCESS, nomem = !o || !part;
  for (int i = 1; i < size && err == MPI_SUCCESS; i++) {
    MPI_Message msg;
    MPI_Status st;
    int count = 0;
    err = sp_probe_any(comm, tag, &msg, &st);
    if (err == MPI_SUCCESS) err = MPI_Get_count(&st, MPI_BYTE, &count);
    if (err != MPI_SUCCESS) break;
    const int from = st.MPI_SOURCE;
    char *p = nomem || from <= 0 || from >= size || part[from] ? NULL : malloc(count ? count : 1);
    if (!p) nomem = 1;
    char spare[1];
    MPI_Request r;
    err = MPI_Imrecv(p ? p : spare, p ? count : 0, MPI_BYTE, &msg, &r);
    if (err == MPI_SUCCESS) err = sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE);
    if (!p && err != MPI_SUCCESS) { /* truncated: what no memory was there for */
      int cls = err;
      MPI_Error_class(err, &cls);
      if (cls == MPI_ERR_TRUNCATE) err = MPI_SUCCESS;
    }
    if (p) {
      part[from] = p;
      o[from + 1] = count;
    }
  }
  char *a = NULL;
  if (err == MPI_SUCCESS && !nomem) {
    o[1] = len;
    for (int r = 0; r < size; r++) o[r + 1] += o[r];
    a = malloc(o[size] > 0 ? (size_t)o[size] : 1);
    if (!a) nomem = 1;
  }
  if (a) {
    memcpy(a, blob, (size_t)len);
    for (int r = 1; r < size; r++)
      if (o[r + 1] > o[r]) memcpy(a + o[r], part[r], (size_t)(o[r + 1] - o[r]));
  }
  for (int r = 0; part && r < size; r++) free(part[r]);
  free(part);
  if (err == MPI_SUCCESS && nomem) err = MPI_ERR_NO_MEM;
  if (err != MPI_SUCCESS) {
    free(a);
    free(o);
    a = NULL;
    o = NULL;
  }
  *all = a;
  *offs = o;
  return err;
}

int sp__mpi_polite_gather(MPI_Comm comm, int rank, int size, const char *blob, int len, int tag,
                          char **all, int64_t **offs) {
  *all = NULL;
  *offs = NULL;
  if (rank == 0) return sp_gather_at_root(comm, size, blob, len, tag, all, offs);
  return sp__mpi_polite_send(comm, blob, len, MPI_BYTE, 0, tag);
}
