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
 * ranks stay where they are (README "When a job dies"). */
#include "mpi_arrival.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sp_internal.h"

enum { TAG_ARRIVED = 7320, TAG_VERDICT, TAG_ACK, TAG_FINAL, GRACE_S = 5 };

static int64_t sp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Tests reqs until all completed (1) or the deadline passed (0), sleeping
 * between tests: from 20 us doubling to 2 ms, then 1/8 of the time waited
 * up to 100 ms (as mpi_polite.c), so a long wait grows by at most 12.5%
 * and ranks that arrive long before the others, which may still compute
 * on the same cores, wake at most 10 times a second. */
static int sp_wait_until(int n, MPI_Request *reqs, int64_t deadline_ns, int *err) {
  const int64_t start = sp_now_ns();
  int64_t ns = 20000;
  for (;;) {
    int done = 0;
    *err = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    if (*err != MPI_SUCCESS) return 0;
    if (done) return 1;
    int64_t now = sp_now_ns();
    if (now >= deadline_ns) return 0;
    int64_t eighth = (now - start) / 8;
    if (ns < 2000000)
      ns *= 2;
    else if (eighth > ns)
      ns = eighth < 100000000 ? eighth : 100000000;
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

/* Rank 0: one int with tag from every other rank, for at most timeout_s.
 * got[r] is 1 for each rank heard; out[0] = how many were not, out[1..]
 * which. Pending receives are cancelled. */
static int sp_collect(MPI_Comm comm, int size, int tag, int64_t timeout_s, int *got,
                      MPI_Request *reqs, int *out) {
  int err = MPI_SUCCESS;
  for (int r = 1; r < size; r++) got[r] = 0;
  for (int r = 1; r < size && err == MPI_SUCCESS; r++)
    err = MPI_Irecv(&got[r], 1, MPI_INT, r, tag, comm, &reqs[r - 1]);
  if (err == MPI_SUCCESS) sp_wait_until(size - 1, reqs, sp_now_ns() + timeout_s * 1000000000, &err);
  out[0] = 0;
  for (int r = 1; r < size && err == MPI_SUCCESS; r++) {
    int done = 0;
    MPI_Test(&reqs[r - 1], &done, MPI_STATUS_IGNORE);
    if (!done) {
      sp_cancel(&reqs[r - 1]);
      got[r] = 0;
      out[1 + out[0]++] = r;
    }
  }
  return err;
}

/* Rank 0 sends verdict (count, then ranks) with tag to every rank in got:
 * each waits for it, so it is received at once. */
static int sp_answer(MPI_Comm comm, int size, const int *got, const int *verdict, int tag) {
  int err = MPI_SUCCESS;
  for (int r = 1; r < size && err == MPI_SUCCESS; r++)
    if (got[r]) err = MPI_Send(verdict, 1 + verdict[0], MPI_INT, r, tag, comm);
  return err;
}

/* Rank 0: every rank arrives (1), is told to go and acknowledges (2), and
 * is told whether all did (3). A rank that gave up waiting before rank 0
 * came left its arrival behind but never acknowledges, so no rank goes on
 * into a collective that a rank which gave up would never join. */
static int sp_arrival_root(MPI_Comm comm, int size, int64_t timeout_s) {
  int *got = calloc((size_t)size, sizeof *got);
  int *verdict = calloc((size_t)size, sizeof *verdict);
  MPI_Request *reqs = calloc((size_t)size, sizeof *reqs);
  int err = got && verdict && reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  if (err == MPI_SUCCESS) err = sp_collect(comm, size, TAG_ARRIVED, timeout_s, got, reqs, verdict);
  if (err == MPI_SUCCESS) err = sp_answer(comm, size, got, verdict, TAG_VERDICT);
  int failed = err != MPI_SUCCESS || verdict[0] > 0;
  if (!failed) {
    err = sp_collect(comm, size, TAG_ACK, timeout_s, got, reqs, verdict);
    if (err == MPI_SUCCESS) err = sp_answer(comm, size, got, verdict, TAG_FINAL);
  }
  int rc = err == MPI_ERR_NO_MEM ? SP_ENOMEM
           : err != MPI_SUCCESS  ? SP_EMPI
           : verdict[0] > 0      ? sp_timed_out(verdict + 1, verdict[0], timeout_s)
                                 : 0;
  free(got);
  free(verdict);
  free(reqs);
  return rc;
}

/* Another rank: sends one int with tag to rank 0 (from a static buffer: it
 * may still be on its way when this returns) and waits for rank 0's answer
 * with answer_tag, at most timeout_s and GRACE_S more. 1 when answered. */
static int sp_ask(MPI_Comm comm, int size, int tag, int answer_tag, int64_t timeout_s, int *verdict,
                  int *err) {
  static const int one = 1;
  MPI_Request reqs[2];
  *err = MPI_Irecv(verdict, size, MPI_INT, 0, answer_tag, comm, &reqs[0]);
  if (*err == MPI_SUCCESS) *err = MPI_Isend(&one, 1, MPI_INT, 0, tag, comm, &reqs[1]);
  if (*err != MPI_SUCCESS) return 0;
  int answered = sp_wait_until(1, &reqs[0], sp_now_ns() + (timeout_s + GRACE_S) * 1000000000, err);
  if (!answered) sp_cancel(&reqs[0]);
  /* A small send completes without its receive; if not, MPI keeps it. */
  int sent = 0;
  MPI_Test(&reqs[1], &sent, MPI_STATUS_IGNORE);
  if (!sent) MPI_Request_free(&reqs[1]);
  return answered;
}

static int sp_arrival_other(MPI_Comm comm, int size, int64_t timeout_s) {
  int *verdict = calloc((size_t)size, sizeof *verdict);
  if (!verdict) return SP_ENOMEM;
  int err = MPI_SUCCESS;
  int answered = sp_ask(comm, size, TAG_ARRIVED, TAG_VERDICT, timeout_s, verdict, &err);
  if (answered && verdict[0] == 0)
    answered = sp_ask(comm, size, TAG_ACK, TAG_FINAL, timeout_s, verdict, &err);
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
  } else if (verdict[0] > 0) {
    rc = sp_timed_out(verdict + 1, verdict[0], timeout_s);
  }
  free(verdict);
  return rc;
}

int sp__mpi_arrival(MPI_Comm comm, int64_t timeout_s) {
  int rank = 0, size = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return SP_EMPI;
  if (size == 1) return 0;
  return rank == 0 ? sp_arrival_root(comm, size, timeout_s)
                   : sp_arrival_other(comm, size, timeout_s);
}
