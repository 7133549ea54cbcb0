/* mpi_profile_wait.c - MPI's waits and tests as regions, with bytes and peer.
 *
 * A wait or test stores the bytes of the receives it completed (started
 * by MPI_Irecv, mpi_requests.c) and their source: the one source, or -1
 * when it completed receives from several or none. Sends and nonblocking
 * collectives stored theirs when they started, so their completion adds
 * nothing to those. Each receive and send it completed is also one
 * completion record (mpi_extra.h sp_mpi_done_t) naming this call and the
 * call that posted the request. The requests are copied before the call (MPI sets completed
 * ones to MPI_REQUEST_NULL) and, when the caller ignores the statuses,
 * the wrapper passes its own; both only when a receive is pending. The
 * receives are taken out of the table before the call (MPI frees a
 * completed request inside it, and another thread may get its handle at
 * once), and those the call did not complete are put back after it. */
#include <stdlib.h>
#include <string.h>

#include "mpi_profile.h"
#include "mpi_requests.h"

#define SP_ON_STACK 16

/* Room for n requests, their marks and statuses: on the stack or, past
 * SP_ON_STACK, malloc'd. */
typedef struct sp_wait_copy {
  MPI_Request stack_req[SP_ON_STACK];
  MPI_Status stack_st[SP_ON_STACK];
  sp_req_val_t stack_vals[SP_ON_STACK];
  unsigned char stack_marks[2 * SP_ON_STACK];
  MPI_Request *req;
  MPI_Status *st;
  sp_req_val_t *vals;   /* [n]: what each taken request is */
  unsigned char *taken; /* [n]: a receive taken out of the table */
  unsigned char *done;  /* [n]: completed by the call */
  int n;
} sp_wait_copy_t;

static void sp_wait_free(sp_wait_copy_t *c) {
  if (c->req != c->stack_req) free(c->req);
  if (c->st != c->stack_st) free(c->st);
  if (c->taken != c->stack_marks) free(c->taken);
  if (c->vals != c->stack_vals) free(c->vals);
}

/* Takes the pending receives among reqs out of the table (before the
 * call: see sp__mpi_req_take) and copies reqs; *sts becomes the statuses
 * to pass. 0 when nothing is needed (no receive pending, or no memory:
 * the call then stores 0, -1). */
static int sp_wait_prepare(sp_wait_copy_t *c, const MPI_Request *reqs, int n, MPI_Status **sts) {
  c->req = NULL;
  c->st = NULL;
  c->n = n;
  if (n <= 0) return 0;
  int big = n > SP_ON_STACK;
  c->taken = big ? malloc(2 * (size_t)n) : c->stack_marks;
  c->vals = big ? malloc((size_t)n * sizeof *c->vals) : c->stack_vals;
  if (!c->taken || !c->vals) {
    if (big) free(c->taken), free(c->vals);
    return 0;
  }
  c->done = c->taken + n;
  if (sp__mpi_req_take(reqs, n, c->taken, c->vals) == 0) {
    if (big) free(c->taken), free(c->vals);
    return 0;
  }
  c->req = big ? malloc((size_t)n * sizeof *c->req) : c->stack_req;
  if (c->req) memcpy(c->req, reqs, (size_t)n * sizeof *c->req);
  if (*sts == MPI_STATUSES_IGNORE) c->st = big ? malloc((size_t)n * sizeof *c->st) : c->stack_st;
  if (!c->req || (*sts == MPI_STATUSES_IGNORE && !c->st)) {
    if (c->req) sp__mpi_req_put_back(c->req, c->taken, NULL, c->vals, n);
    if (big) free(c->req), free(c->st), free(c->taken), free(c->vals);
    return 0;
  }
  if (c->st) *sts = c->st;
  return 1;
}

/* After the call: the values of the completed requests idx[0..m) (all n
 * when idx is NULL and all is 1), with statuses sts, and their completion
 * records (the call: region `code`, index wcall); the requests taken but not
 * completed go back into the table. Frees c. */
static void sp_wait_finish(sp_wait_copy_t *c, int all, const int *idx, int m, const MPI_Status *sts,
                           int32_t code, int64_t wcall, int64_t *bytes, int32_t *peer) {
  if (all) {
    sp__mpi_req_got(c->taken, c->vals, NULL, c->n, sts, code, wcall, bytes, peer);
  } else {
    memset(c->done, 0, (size_t)c->n);
    for (int j = 0; idx && j < m; j++)
      if (idx[j] >= 0 && idx[j] < c->n) c->done[idx[j]] = 1;
    sp__mpi_req_got(c->taken, c->vals, idx, idx ? m : 0, sts, code, wcall, bytes, peer);
    sp__mpi_req_put_back(c->req, c->taken, c->done, c->vals, c->n);
  }
  sp_wait_free(c);
}

/* After the call of a wrapper that prepared c (pending: what
 * sp_wait_prepare returned): the bytes and peer of the completed receives,
 * as sp_wait_finish takes them, noted when the call was recorded (on). */
static void sp_wait_note(int h, int on, sp_wait_copy_t *c, int pending, int all, const int *idx,
                         int m, const MPI_Status *sts) {
  int64_t bytes = 0;
  int32_t peer = -1;
  if (pending) sp_wait_finish(c, all, idx, m, sts, h, on ? sp__mpi_x_count(h) : -1, &bytes, &peer);
  if (on) sp__mpi_note(h, bytes, peer);
}

/* Wait and Test of one request. */
static int sp_wait_one(int h, MPI_Request *req, int *flag, MPI_Status *status) {
  MPI_Request before = *req;
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  sp_req_val_t v;
  int took = sp__mpi_req_take(&before, 1, NULL, &v);
  int on = sp__mpi_begin(h);
  int rc = flag ? PMPI_Test(req, flag, st) : PMPI_Wait(req, st);
  sp_stop(h);
  int64_t bytes = 0;
  int32_t peer = -1;
  if (took && rc == MPI_SUCCESS && (!flag || *flag))
    sp__mpi_req_got(NULL, &v, NULL, 1, st, h, on ? sp__mpi_x_count(h) : -1, &bytes, &peer);
  else if (took)
    sp__mpi_req_put_back(&before, NULL, NULL, &v, 1);
  if (on) sp__mpi_note(h, bytes, peer);
  return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_WAIT);
  if (SP_LIKELY(h < 0)) return PMPI_Wait(req, status);
  return sp_wait_one(h, req, NULL, status);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_TEST);
  if (SP_LIKELY(h < 0)) return PMPI_Test(req, flag, status);
  return sp_wait_one(h, req, flag, status);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_WAITANY);
  if (SP_LIKELY(h < 0)) return PMPI_Waitany(n, reqs, index, status);
  sp_wait_copy_t c;
  MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status, *sts = MPI_STATUSES_IGNORE;
  int pending = sp_wait_prepare(&c, reqs, n, &sts);
  int on = sp__mpi_begin(h);
  int rc = PMPI_Waitany(n, reqs, index, st);
  sp_stop(h);
  sp_wait_note(h, on, &c, pending, 0, index, rc == MPI_SUCCESS && *index != MPI_UNDEFINED, st);
  return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_TESTANY);
  if (SP_LIKELY(h < 0)) return PMPI_Testany(n, reqs, index, flag, status);
  sp_wait_copy_t c;
  MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status, *sts = MPI_STATUSES_IGNORE;
  int pending = sp_wait_prepare(&c, reqs, n, &sts);
  int on = sp__mpi_begin(h);
  int rc = PMPI_Testany(n, reqs, index, flag, st);
  sp_stop(h);
  sp_wait_note(h, on, &c, pending, 0, index, rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED,
               st);
  return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_WAITALL);
  if (SP_LIKELY(h < 0)) return PMPI_Waitall(n, reqs, statuses);
  sp_wait_copy_t c;
  MPI_Status *sts = statuses;
  int pending = sp_wait_prepare(&c, reqs, n, &sts);
  int on = sp__mpi_begin(h);
  int rc = PMPI_Waitall(n, reqs, sts);
  sp_stop(h);
  sp_wait_note(h, on, &c, pending, rc == MPI_SUCCESS, NULL, 0, sts);
  return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[]) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_TESTALL);
  if (SP_LIKELY(h < 0)) return PMPI_Testall(n, reqs, flag, statuses);
  sp_wait_copy_t c;
  MPI_Status *sts = statuses;
  int pending = sp_wait_prepare(&c, reqs, n, &sts);
  int on = sp__mpi_begin(h);
  int rc = PMPI_Testall(n, reqs, flag, sts);
  sp_stop(h);
  sp_wait_note(h, on, &c, pending, rc == MPI_SUCCESS && *flag, NULL, 0, sts);
  return rc;
}

/* Waitsome and Testsome: the same, over the indices they report. */
#define SP_SOME(ID, NAME)                                                                          \
  int MPI_##NAME(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) { \
    int h = sp__mpi_call_handle(SP_MPI_CALL_##ID);                                                 \
    if (SP_LIKELY(h < 0)) return PMPI_##NAME(n, reqs, outcount, indices, statuses);                \
    sp_wait_copy_t c;                                                                              \
    MPI_Status *sts = statuses;                                                                    \
    int pending = sp_wait_prepare(&c, reqs, n, &sts);                                              \
    int on = sp__mpi_begin(h);                                                                     \
    int rc = PMPI_##NAME(n, reqs, outcount, indices, sts);                                         \
    sp_stop(h);                                                                                    \
    int m = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;                       \
    sp_wait_note(h, on, &c, pending, 0, indices, m, sts);                                          \
    return rc;                                                                                     \
  }
SP_SOME(WAITSOME, Waitsome)
SP_SOME(TESTSOME, Testsome)
