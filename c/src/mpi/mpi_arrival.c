/* mpi_arrival.c - finalize's bounded wait for every rank to arrive.
 *
 * Finalize's first collective (duplicating the communicator) waits forever
 * for a rank that never calls sp_finalize: one stuck in another collective,
 * one that returned early, a rank of another communicator. So before it,
 * every rank tells rank 0 that it arrived, by point-to-point messages that
 * can be given up: rank 0 waits for them at most the timeout
 * (SCOPE_PROFILER_FINALIZE_TIMEOUT, default 600 s) and answers every rank
 * that arrived with the list of those that did not (empty: go on, once
 * every rank has acknowledged; see sp_arrival_root). A rank that hears
 * nothing from rank 0 within the timeout and 5 s more gives up on its own.
 * Pending receives are cancelled, so nothing of ours is left waiting; a
 * message of a rank that arrives later stays unmatched on the library's
 * communicator. MPI cannot cancel a collective, so the missing
 * ranks stay where they are (docs/recovery.md).
 *
 * sp_report and sp_finalize both begin with this wait, so each rank's
 * message says which operation it began and its sequence number in the
 * session: a rank in sp_report while another is in sp_finalize would
 * otherwise go on into a collective the other never joins, and both hang
 * (issue 43 item 2). Rank 0 compares every message with its own and, when
 * one differs, tells every rank that arrived, which returns SP_EMPI before
 * any collective, naming the ranks and what each began.
 *
 * The messages also carry where each rank runs and whether it records, so
 * that rank 0's last answer tells every rank how many ranks share a CPU
 * (mpi_crowding.c) and whether any records: a gather, a broadcast and an
 * agreement fewer in every finalize (each a round of wake-ups where ranks
 * share cores: docs/performance.md, "the columnar finalize's rounds"). */
#include "mpi_arrival.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpi_crowding.h"
#include "mpi_polite.h"
#include "sp_internal.h"

enum { TAG_ARRIVED = 7320, TAG_VERDICT, TAG_ACK, TAG_FINAL, GRACE_S = 5 };

/* A verdict: V_MISSING ranks that did not arrive, V_OTHER that began
 * another operation than rank 0's (V_OP, V_SEQ), in the last one the most
 * ranks per CPU and whether any rank records (V_PER_CPU, V_ANY), then the
 * missing ranks, then (rank, op, seq) of each of the others. */
enum { V_MISSING, V_OTHER, V_OP, V_SEQ, V_PER_CPU, V_ANY, V_HEAD };

/* A rank's message: the operation, and where it runs. */
typedef struct sp_note {
  int32_t op, seq, active, unused;
  sp_where_t where;
} sp_note_t;
#define SP_VERDICT_INTS(size) (V_HEAD + 4 * (size_t)(size))

static const char *sp_op_name(int op) {
  return op == SP_PAR_FINALIZE ? "sp_finalize" : op == SP_PAR_REPORT ? "sp_report" : "?";
}

static int64_t sp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Tests reqs until all completed (1) or the deadline passed (0), sleeping
 * between tests 1/8 of the time waited, from 20 us up to 100 ms
 * (mpi_polite.c): a wait's end is seen at most 12.5% late, and ranks that
 * arrive long before the others, which may still compute on the same
 * cores, wake at most 10 times a second. */
static int sp_wait_until(int n, MPI_Request *reqs, int64_t deadline_ns, int *err) {
  const int64_t start = sp_now_ns();
  for (;;) {
    int done = 0;
    *err = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    if (*err != MPI_SUCCESS) return 0;
    if (done) return 1;
    int64_t now = sp_now_ns();
    if (now >= deadline_ns) return 0;
    int64_t ns = sp__mpi_polite_nap_ns(now - start, 100000000);
    int64_t nap = now + ns > deadline_ns ? deadline_ns - now : ns;
    struct timespec ts = {0, (long)nap};
    nanosleep(&ts, NULL);
  }
}

static void sp_cancel(MPI_Request *r) {
  if (*r == MPI_REQUEST_NULL) return;
  MPI_Cancel(r);
  MPI_Wait(r, MPI_STATUS_IGNORE);
}

/* "1, 2, 5" from the missing ranks (at most 32 named, then "..."). */
static void sp_rank_list(const int *ranks, int n, char *out, size_t cap) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n && used < cap; i++) {
    if (i == 32) {
      snprintf(out + used, cap - used, ", ... (%d in all)", n);
      return;
    }
    used += (size_t)snprintf(out + used, cap - used, "%s%d", i ? ", " : "", ranks[i]);
  }
}

static int sp_timed_out(const int *missing, int n, int64_t timeout_s) {
  char list[400];
  sp_rank_list(missing, n, list, sizeof list);
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
          "rank(s) %s did not reach sp_finalize within %lld s, or gave up waiting "
          "(SCOPE_PROFILER_FINALIZE_TIMEOUT); the profile is not written",
          list, (long long)timeout_s);
  return SP_ETIMEDOUT;
}

/* The ranks named in a failed verdict: "rank(s) 1, 2 did not arrive",
 * "rank(s) 3 began sp_finalize (call 1 of the session) where rank 0 began
 * sp_report (call 1)". SP_EMPI when ranks began another operation, else
 * SP_ETIMEDOUT. */
static int sp_verdict_failed(const int *v, int64_t timeout_s, int op) {
  int rc = SP_ETIMEDOUT;
  if (v[V_OTHER] > 0) {
    int ranks[32], n = 0;
    const int *o = v + V_HEAD + v[V_MISSING];
    char list[400];
    /* Named by the first other's operation; the others are usually the same. */
    for (int i = 0; i < v[V_OTHER] && n < 32; i++)
      if (o[3 * i + 1] == o[1] && o[3 * i + 2] == o[2]) ranks[n++] = o[3 * i];
    sp_rank_list(ranks, n, list, sizeof list);
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "rank(s) %s began %s (call %d of the session) where rank 0 began %s (call %d): "
            "every rank must call sp_report and sp_finalize in the same order, and a rank "
            "skipped one; %s here returns SP_EMPI without waiting for the others (%d rank(s) "
            "in all disagree with rank 0)",
            list, sp_op_name(o[1]), o[2], sp_op_name(v[V_OP]), v[V_SEQ], sp_op_name(op),
            v[V_OTHER]);
    rc = SP_EMPI;
  }
  if (v[V_MISSING] > 0) {
    int t = sp_timed_out(v + V_HEAD, v[V_MISSING], timeout_s);
    if (rc == SP_ETIMEDOUT) rc = t;
  }
  return rc;
}

/* Rank 0: the note with tag from every other rank, for at most
 * timeout_s, into msg[r]. got[r] is 1 for each rank heard;
 * the verdict v says how many and which were not, and which began another
 * operation than (op, seq). Pending receives are cancelled. */
static int sp_collect(MPI_Comm comm, int size, int tag, int64_t timeout_s, int op, int seq,
                      int *got, sp_note_t *msg, MPI_Request *reqs, int *v) {
  int err = MPI_SUCCESS;
  for (int r = 1; r < size; r++) got[r] = 0;
  for (int r = 1; r < size && err == MPI_SUCCESS; r++)
    err = MPI_Irecv(&msg[r], (int)sizeof *msg, MPI_BYTE, r, tag, comm, &reqs[r - 1]);
  if (err == MPI_SUCCESS) sp_wait_until(size - 1, reqs, sp_now_ns() + timeout_s * 1000000000, &err);
  v[V_MISSING] = v[V_OTHER] = 0;
  v[V_OP] = op;
  v[V_SEQ] = seq;
  for (int r = 1; r < size && err == MPI_SUCCESS; r++) {
    int done = 0;
    MPI_Test(&reqs[r - 1], &done, MPI_STATUS_IGNORE);
    if (!done) {
      sp_cancel(&reqs[r - 1]);
      v[V_HEAD + v[V_MISSING]++] = r;
    } else {
      got[r] = 1;
    }
  }
  /* After the missing ones, whose count is known only now. */
  int *o = v + V_HEAD + v[V_MISSING];
  for (int r = 1; r < size && err == MPI_SUCCESS; r++) {
    if (!got[r] || (msg[r].op == op && msg[r].seq == seq)) continue;
    int *e = o + 3 * v[V_OTHER]++;
    e[0] = r, e[1] = msg[r].op, e[2] = msg[r].seq;
  }
  return err;
}

/* Rank 0 sends verdict (count, then ranks) with tag to every rank in got:
 * each waits for it, so it is received at once. */
static int sp_answer(MPI_Comm comm, int size, const int *got, const int *verdict, int tag) {
  int err = MPI_SUCCESS;
  for (int r = 1; r < size && err == MPI_SUCCESS; r++)
    if (got[r])
      err = MPI_Send(verdict, V_HEAD + verdict[V_MISSING] + 3 * verdict[V_OTHER], MPI_INT, r, tag,
                     comm);
  return err;
}

/* Rank 0's last answer: the ranks per CPU and whether any rank records,
 * from the notes of the arrival (msg[0]: rank 0's). */
static void sp_crowding(sp_note_t *msg, int size, int *verdict) {
  sp_where_t *w = malloc((size_t)size * sizeof *w);
  int any = 0;
  for (int r = 0; r < size; r++) {
    any |= msg[r].active != 0;
    if (w) w[r] = msg[r].where;
  }
  verdict[V_PER_CPU] = w ? sp__mpi_most_per_cpu(w, size) : 1; /* 1: spin as MPI does */
  verdict[V_ANY] = any;
  free(w);
}

/* Rank 0: every rank arrives (1), is told to go and acknowledges (2), and
 * is told whether all did (3). A rank that gave up waiting before rank 0
 * came left its arrival behind but never acknowledges, so no rank goes on
 * into a collective that a rank which gave up would never join. */
static int sp_arrival_root(MPI_Comm comm, int size, int64_t timeout_s, const sp_note_t *mine,
                           sp_arrival_t *out) {
  const int op = mine->op, seq = mine->seq;
  int *got = calloc((size_t)size, sizeof *got);
  sp_note_t *msg = calloc((size_t)size, sizeof *msg);
  int *verdict = calloc(SP_VERDICT_INTS(size), sizeof *verdict);
  MPI_Request *reqs = calloc((size_t)size, sizeof *reqs);
  int err = got && msg && verdict && reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  if (err == MPI_SUCCESS)
    err = sp_collect(comm, size, TAG_ARRIVED, timeout_s, op, seq, got, msg, reqs, verdict);
  if (err == MPI_SUCCESS) err = sp_answer(comm, size, got, verdict, TAG_VERDICT);
  int failed = err != MPI_SUCCESS || verdict[V_MISSING] > 0 || verdict[V_OTHER] > 0;
  if (!failed) { /* the acknowledgements carry the same notes as the arrivals */
    err = sp_collect(comm, size, TAG_ACK, timeout_s, op, seq, got, msg, reqs, verdict);
    msg[0] = *mine;
    if (err == MPI_SUCCESS) sp_crowding(msg, size, verdict);
    out->ranks_per_cpu = verdict[V_PER_CPU];
    out->any_active = verdict[V_ANY];
    if (err == MPI_SUCCESS) err = sp_answer(comm, size, got, verdict, TAG_FINAL);
  }
  int rc = err == MPI_ERR_NO_MEM ? SP_ENOMEM
           : err != MPI_SUCCESS  ? SP_EMPI
           : verdict[V_MISSING] > 0 || verdict[V_OTHER] > 0
               ? sp_verdict_failed(verdict, timeout_s, op)
               : 0;
  free(got);
  free(msg);
  free(verdict);
  free(reqs);
  return rc;
}

/* Another rank: sends its note with tag to rank 0 (from a static buffer:
 * it may still be on its way when this returns) and waits for rank 0's
 * answer with answer_tag, at most timeout_s and GRACE_S more. 1 when
 * answered. */
static int sp_ask(MPI_Comm comm, int size, int tag, int answer_tag, int64_t timeout_s,
                  const sp_note_t *mine, int *verdict, int *err) {
  static sp_note_t msg[2]; /* one per tag: the arrival and the acknowledgement */
  sp_note_t *m = &msg[tag == TAG_ARRIVED ? 0 : 1];
  *m = *mine;
  MPI_Request reqs[2];
  *err = MPI_Irecv(verdict, (int)SP_VERDICT_INTS(size), MPI_INT, 0, answer_tag, comm, &reqs[0]);
  if (*err == MPI_SUCCESS) *err = MPI_Isend(m, (int)sizeof *m, MPI_BYTE, 0, tag, comm, &reqs[1]);
  if (*err != MPI_SUCCESS) return 0;
  int answered = sp_wait_until(1, &reqs[0], sp_now_ns() + (timeout_s + GRACE_S) * 1000000000, err);
  if (!answered) sp_cancel(&reqs[0]);
  /* A small send completes without its receive; if not, MPI keeps it. */
  int sent = 0;
  MPI_Test(&reqs[1], &sent, MPI_STATUS_IGNORE);
  if (!sent) MPI_Request_free(&reqs[1]);
  return answered;
}

static int sp_arrival_other(MPI_Comm comm, int size, int64_t timeout_s, const sp_note_t *mine,
                            sp_arrival_t *out) {
  const int op = mine->op;
  int *verdict = calloc(SP_VERDICT_INTS(size), sizeof *verdict);
  if (!verdict) return SP_ENOMEM;
  int err = MPI_SUCCESS;
  int answered = sp_ask(comm, size, TAG_ARRIVED, TAG_VERDICT, timeout_s, mine, verdict, &err);
  if (answered && verdict[V_MISSING] == 0 && verdict[V_OTHER] == 0) {
    answered = sp_ask(comm, size, TAG_ACK, TAG_FINAL, timeout_s, mine, verdict, &err);
    out->ranks_per_cpu = verdict[V_PER_CPU] > 0 ? verdict[V_PER_CPU] : 1;
    out->any_active = verdict[V_ANY];
  }
  int rc = 0;
  if (err != MPI_SUCCESS) {
    rc = SP_EMPI;
  } else if (!answered) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "no answer from rank 0 within %lld s (SCOPE_PROFILER_FINALIZE_TIMEOUT): rank 0 "
            "did not reach sp_finalize, or it waits for ranks that did not; the profile is "
            "not written",
            (long long)timeout_s + GRACE_S);
    rc = SP_ETIMEDOUT;
  } else if (verdict[V_MISSING] > 0 || verdict[V_OTHER] > 0) {
    rc = sp_verdict_failed(verdict, timeout_s, op);
  }
  free(verdict);
  return rc;
}

int sp__mpi_arrival(MPI_Comm comm, int64_t timeout_s, int op, int seq, int active,
                    sp_arrival_t *out) {
  int rank = 0, size = 1;
  sp_note_t mine = {.op = op, .seq = seq, .active = active != 0, .where = sp__mpi_where_am_i()};
  *out = (sp_arrival_t){.ranks_per_cpu = 1, .any_active = mine.active};
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return SP_EMPI;
  if (size == 1) {
    out->ranks_per_cpu = sp__mpi_most_per_cpu(&mine.where, 1);
    return 0;
  }
  return rank == 0 ? sp_arrival_root(comm, size, timeout_s, &mine, out)
                   : sp_arrival_other(comm, size, timeout_s, &mine, out);
}
