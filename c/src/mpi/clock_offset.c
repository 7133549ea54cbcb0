/* clock_offset.c - this rank's CLOCK_MONOTONIC against rank 0's.
 *
 * Stamps are each node's CLOCK_MONOTONIC, which counts from that node's
 * boot: ranks on different nodes differ by hours or days. Each rank other
 * than 0 measures its offset to rank 0 as Score-P does: it sends a ping
 * (stamp t0 on its clock), rank 0 answers with its own stamp s, the answer
 * arrives at t1; then offset = (t0 + t1) / 2 - s, within (t1 - t0) / 2. Of
 * SP_CLOCK_ROUNDS exchanges the one with the shortest round trip counts.
 * Rank 0 answers pings from any rank in the order they come, so a late
 * rank does not hold up the others, until every rank had its rounds or the
 * deadline passed. Every wait is bounded: a rank that never comes is given
 * up (its pending receive cancelled), as in mpi_arrival.c. Each ping
 * carries a sequence number that the answer echoes, so an answer left over
 * from an exchange given up earlier is never taken for a current one, and
 * each measurement on a communicator its own tags (a ping left over from
 * an earlier one is never served). A rank on rank 0's node (the same
 * processor name: one kernel, one CLOCK_MONOTONIC) learns so from the
 * first answer and stops there: its offset is 0 exactly. On one node of
 * 16 ranks sharing 2 cores rank 0 served 180 pings, spinning, while the
 * others needed the cores; at 100,000 ranks it serves a node's worth of
 * ranks once and 12 pings per rank of other nodes.
 * PMPI_ calls throughout: with profile_mpi the MPI_ wrappers would record
 * the library's own messages as the program's (the measurement may run
 * inside MPI_Init or sp_mpi_set_comm while recording). The stamps are
 * stored as recorded; readers align them (docs/design.md "Clock alignment"). */
#include "clock_offset.h"

#include <stdlib.h>
#include <time.h>

#include "mpi_crowding.h"

/* Tags: TAG_PING + 2 * (measurement % TAG_GENERATIONS), TAG_PONG the same + 1. */
enum { SP_CLOCK_ROUNDS = 12, TAG_PING = 8400, TAG_PONG = 8401, TAG_GENERATIONS = 256 };

/* Spins this long before sleeping between tests: a round trip over a
 * network is tens of microseconds, and a sleep would add its own length to
 * the error bound. */
#define SP_CLOCK_SPIN_NS 2000000

/* Tests r until it completes (1, *st filled) or the deadline passes (0):
 * spinning first, then sleeping from 50 us doubling to 10 ms (ranks wait
 * here for a late rank without taking a CPU from it). */
static int sp_clock_wait(MPI_Request *r, MPI_Status *st, int64_t deadline_ns, int *err) {
  const int64_t start = sp__monotonic_ns();
  int64_t nap = 50000;
  for (;;) {
    int done = 0;
    *err = PMPI_Test(r, &done, st);
    if (*err != MPI_SUCCESS) return 0;
    if (done) return 1;
    int64_t now = sp__monotonic_ns();
    if (now >= deadline_ns) return 0;
    if (now - start < SP_CLOCK_SPIN_NS) continue;
    int64_t ns = now + nap > deadline_ns ? deadline_ns - now : nap;
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    nanosleep(&ts, NULL);
    if (nap < 10000000) nap *= 2;
  }
}

static void sp_clock_cancel(MPI_Request *r) {
  if (*r == MPI_REQUEST_NULL) return;
  PMPI_Cancel(r);
  PMPI_Wait(r, MPI_STATUS_IGNORE);
}

/* Rank 0: answers (size - 1) * SP_CLOCK_ROUNDS pings, a rank of its own
 * node's one, each with its sequence number, rank 0's stamp and whether
 * the asker shares its node, or until the deadline. */
static int sp_clock_serve(MPI_Comm comm, int size, int tag, int64_t deadline_ns) {
  int64_t want = (int64_t)(size - 1) * SP_CLOCK_ROUNDS;
  const int64_t node = (int64_t)sp__mpi_node_hash();
  int err = MPI_SUCCESS;
  for (int64_t served = 0; served < want && err == MPI_SUCCESS; served++) {
    int64_t ping[2] = {0, 0}; /* sequence number, the asker's node */
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    err = PMPI_Irecv(ping, 2, MPI_INT64_T, MPI_ANY_SOURCE, tag, comm, &r);
    if (err != MPI_SUCCESS) break;
    if (!sp_clock_wait(&r, &st, deadline_ns, &err)) {
      sp_clock_cancel(&r);
      return err != MPI_SUCCESS ? SP_EMPI : SP_ETIMEDOUT;
    }
    const int64_t same = ping[1] == node;
    if (same) want -= SP_CLOCK_ROUNDS - 1; /* it asks this once */
    int64_t pong[3] = {ping[0], sp__monotonic_ns(), same};
    err = PMPI_Send(pong, 3, MPI_INT64_T, st.MPI_SOURCE, tag + 1, comm);
  }
  return err == MPI_SUCCESS ? 0 : SP_EMPI;
}

/* One exchange: 1 with *t0, *t1 (this clock), *s (rank 0's) and *same
 * (this rank is on rank 0's node) filled. */
static int sp_clock_exchange(MPI_Comm comm, int tag, int64_t seq, int64_t deadline_ns, int64_t *t0,
                             int64_t *t1, int64_t *s, int *same, int *err) {
  static int64_t ping[2]; /* may still be on its way when this returns */
  int64_t pong[3] = {-1, 0, 0};
  MPI_Request rr = MPI_REQUEST_NULL, sr = MPI_REQUEST_NULL;
  MPI_Status st;
  *err = PMPI_Irecv(pong, 3, MPI_INT64_T, 0, tag + 1, comm, &rr);
  if (*err != MPI_SUCCESS) return 0;
  ping[0] = seq;
  ping[1] = (int64_t)sp__mpi_node_hash();
  *t0 = sp__monotonic_ns();
  *err = PMPI_Isend(ping, 2, MPI_INT64_T, 0, tag, comm, &sr);
  int got = *err == MPI_SUCCESS;
  /* An answer to an older ping (given up before) is read and dropped. */
  while (got && (got = sp_clock_wait(&rr, &st, deadline_ns, err)) && pong[0] != seq) {
    *err = PMPI_Irecv(pong, 3, MPI_INT64_T, 0, tag + 1, comm, &rr);
    got = *err == MPI_SUCCESS;
  }
  *t1 = sp__monotonic_ns();
  *s = pong[1];
  *same = pong[2] != 0;
  if (!got) sp_clock_cancel(&rr);
  int sent = 0;
  if (sr != MPI_REQUEST_NULL) PMPI_Test(&sr, &sent, MPI_STATUS_IGNORE);
  if (!sent && sr != MPI_REQUEST_NULL) PMPI_Request_free(&sr);
  return got;
}

/* Another rank: SP_CLOCK_ROUNDS exchanges, the shortest round trip kept;
 * one on rank 0's node, whose offset is 0. */
static int sp_clock_ask(MPI_Comm comm, int rank, int tag, int64_t deadline_ns,
                        sp_clock_offset_t *out) {
  static int64_t seq_base; /* sequence numbers never repeat in a process */
  int64_t best = INT64_MAX;
  int err = MPI_SUCCESS;
  for (int k = 0; k < SP_CLOCK_ROUNDS; k++) {
    int64_t t0, t1, s;
    int same = 0;
    int64_t seq = ((int64_t)rank << 40) | ++seq_base;
    if (!sp_clock_exchange(comm, tag, seq, deadline_ns, &t0, &t1, &s, &same, &err)) break;
    if (same) { /* the same clock */
      *out = (sp_clock_offset_t){.offset_ns = 0, .at_ns = t0, .error_ns = 0, .valid = 1};
      return 0;
    }
    if (t1 - t0 < best) {
      best = t1 - t0;
      out->at_ns = t0 + (t1 - t0) / 2;
      out->offset_ns = out->at_ns - s;
      out->error_ns = (t1 - t0 + 1) / 2;
      out->valid = 1;
    }
  }
  if (out->valid) return 0;
  return err != MPI_SUCCESS ? SP_EMPI : SP_ETIMEDOUT;
}

int sp__clock_offset_measure(MPI_Comm comm, unsigned measurement, int64_t timeout_s,
                             sp_clock_offset_t *out) {
  out->offset_ns = out->error_ns = 0;
  out->at_ns = sp__monotonic_ns();
  out->valid = 0;
  out->spilled = 0;
  int rank = 0, size = 1;
  if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return SP_EMPI;
  const int64_t deadline = out->at_ns + timeout_s * 1000000000;
  const int tag = TAG_PING + 2 * (int)(measurement % TAG_GENERATIONS);
  if (rank != 0) return sp_clock_ask(comm, rank, tag, deadline, out);
  /* Rank 0 is the reference: its offset is 0 by definition. */
  out->valid = 1;
  return size > 1 ? sp_clock_serve(comm, size, tag, deadline) : 0;
}
