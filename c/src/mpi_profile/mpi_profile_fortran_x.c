/* mpi_profile_fortran_x.c - the bytes and peer of Fortran MPI calls.
 *
 * The same rules as the C wrappers, read from Fortran arguments: every
 * argument is a pointer; handles (also mpi_f08's, one integer each) are
 * converted with MPI_*_f2c, statuses with MPI_Status_f2c, MPI_IN_PLACE and
 * MPI_STATUS(ES)_IGNORE recognised by their addresses. Fortran indices
 * (Waitany, Waitsome) count from 1. A rooted collective's peer is its
 * root, as in C (issue 50: Late Broadcast, Early Reduce). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_profile_fortran_x.h"

#define SP_FST ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint))) /* ints of a Fortran status */

#define I(k) (*(const MPI_Fint *)a[k])
#define T(k) PMPI_Type_f2c(I(k))
#define C(k) PMPI_Comm_f2c(I(k))

/* Fortran's MPI_IN_PLACE, as the address its common block has. */
static const void *sp_f_in_place(void) {
  static void *p;
  static int looked;
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&p, dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_"), __ATOMIC_RELAXED);
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  return p;
}

#define IP(k) (a[k] == sp_f_in_place() && a[k] ? MPI_IN_PLACE : a[k])

/* A status argument the caller ignores gets the wrapper's own. */
static void sp_own_status(void **a, int k, sp_fx_t *x) {
  if (a[k] == (void *)MPI_F_STATUS_IGNORE) a[k] = x->own;
}

static void sp_fstatus_got(const void *f, int64_t *bytes, int32_t *peer) {
  MPI_Status c;
  if (PMPI_Status_f2c((const MPI_Fint *)f, &c) != MPI_SUCCESS) {
    *bytes = 0;
    *peer = -1;
    return;
  }
  sp__mpi_status_got(&c, bytes, peer);
}

/* A wait/test over the n Fortran requests at a[kr], statuses at a[ks]
 * (-1: one status, not an array): the pending receives among them are
 * taken out of the table before the call (sp__mpi_req_take). */
static void sp_reqs_before(void **a, int kn, int kr, int ks, sp_fx_t *x) {
  int n = kn >= 0 ? I(kn) : 1;
  const MPI_Fint *fr = a[kr];
  x->n = n;
  if (n <= 0) return;
  x->reqs = malloc((size_t)n * sizeof *x->reqs);
  x->taken = malloc(2 * (size_t)n);
  x->vals = malloc((size_t)n * sizeof *x->vals);
  if (!x->reqs || !x->taken || !x->vals) {
    free(x->reqs), free(x->taken), free(x->vals);
    x->reqs = NULL, x->taken = NULL, x->vals = NULL;
    return;
  }
  for (int i = 0; i < n; i++) x->reqs[i] = PMPI_Request_f2c(fr[i]);
  x->pending = sp__mpi_req_take(x->reqs, n, x->taken, x->vals) > 0;
  if (!x->pending) {
    free(x->reqs), free(x->taken), free(x->vals);
    x->reqs = NULL, x->taken = NULL, x->vals = NULL;
  } else if (ks >= 0 && a[ks] == (void *)MPI_F_STATUSES_IGNORE) {
    x->own_sts = malloc((size_t)n * SP_FST * sizeof(MPI_Fint));
    if (x->own_sts) a[ks] = x->own_sts;
  }
}

/* Completed: idx[0..m) (from 0; NULL: all n), statuses at fs (one per
 * completed request in order, or one per request when idx is NULL). The
 * receives taken and not completed go back into the table. */
static void sp_reqs_after(sp_fx_t *x, const int *idx, int m, const MPI_Fint *fs) {
  if (!x->pending) return;
  MPI_Status *cs = fs && m > 0 ? malloc((size_t)m * sizeof *cs) : NULL;
  for (int j = 0; cs && j < m; j++) PMPI_Status_f2c(fs + (size_t)j * SP_FST, &cs[j]);
  if (cs && fs != (const MPI_Fint *)MPI_F_STATUSES_IGNORE)
    sp__mpi_req_got(x->taken, x->vals, idx, m, cs, x->h, x->call, &x->bytes, &x->peer);
  unsigned char *done = x->taken + x->n;
  memset(done, idx ? 0 : m > 0, (size_t)x->n);
  for (int j = 0; idx && j < m; j++)
    if (idx[j] >= 0 && idx[j] < x->n) done[idx[j]] = 1;
  sp__mpi_req_put_back(x->reqs, x->taken, done, x->vals, x->n);
  free(cs);
  free(x->reqs);
  free(x->taken);
  free(x->vals);
  free(x->own_sts);
}

void sp__fx_before(sp_fx_kind_t kind, void **a, sp_fx_t *x) {
  memset(x, 0, offsetof(sp_fx_t, own));
  x->peer = x->tag = x->comm = -1;
  switch (kind) {
  case SP_FX_RECV:
    sp_own_status(a, 6, x);
    break;
  case SP_FX_SENDRECV:
    sp_own_status(a, 11, x);
    break;
  case SP_FX_SENDRECV_REPLACE:
    sp_own_status(a, 8, x);
    break;
  case SP_FX_PROBE:
    sp_own_status(a, 3, x);
    break;
  case SP_FX_IPROBE:
    sp_own_status(a, 4, x);
    break;
  case SP_FX_WAIT:
  case SP_FX_TEST:
    sp_own_status(a, kind == SP_FX_WAIT ? 1 : 2, x);
    x->one = PMPI_Request_f2c(I(0));
    x->pending = sp__mpi_req_take(&x->one, 1, NULL, &x->one_val);
    break;
  case SP_FX_WAITALL:
    sp_reqs_before(a, 0, 1, 2, x);
    break;
  case SP_FX_TESTALL:
    sp_reqs_before(a, 0, 1, 3, x);
    break;
  case SP_FX_WAITANY:
    sp_own_status(a, 3, x);
    sp_reqs_before(a, 0, 1, -1, x);
    break;
  case SP_FX_TESTANY:
    sp_own_status(a, 4, x);
    sp_reqs_before(a, 0, 1, -1, x);
    break;
  case SP_FX_WAITSOME:
    sp_reqs_before(a, 0, 1, 4, x);
    break;
  case SP_FX_START:
    x->one = PMPI_Request_f2c(I(0));
    break;
  default:
    break;
  }
}

/* The values of the point-to-point kinds and the waits. */
static void sp_fx_p2p(sp_fx_kind_t kind, void **a, sp_fx_t *x) {
  int32_t src;
  switch (kind) {
  case SP_FX_SEND:
    x->bytes = I(3) >= 0 ? sp__mpi_tbytes(I(1), T(2)) : 0;
    x->peer = sp__mpi_peer(I(3));
    if (x->code >= SP_MPI_CALL_ISEND && x->code <= SP_MPI_CALL_IRSEND && I(3) >= 0 &&
        (!a[7] || I(7) == MPI_SUCCESS)) { /* a nonblocking send: until its wait */
      const sp_req_val_t v = {x->bytes, x->call,         I(3), 0, I(4), sp__mpi_comm_id(C(5)),
                              x->h,     sp__mpi_thread()};
      sp__mpi_req_post(PMPI_Request_f2c(I(6)), &v);
    }
    break;
  case SP_FX_RECV:
    sp_fstatus_got(a[6], &x->bytes, &x->peer);
    break;
  case SP_FX_IRECV:
    if (!a[7] || I(7) == MPI_SUCCESS) {
      const sp_req_val_t v = {0, x->call, -1, 1, -1, sp__mpi_comm_id(C(5)), x->h, sp__mpi_thread()};
      sp__mpi_req_post(PMPI_Request_f2c(I(6)), &v);
    }
    break;
  case SP_FX_SENDRECV:
  case SP_FX_SENDRECV_REPLACE:
    sp_fstatus_got(a[kind == SP_FX_SENDRECV ? 11 : 8], &x->bytes, &src);
    x->bytes += I(3) >= 0 ? sp__mpi_tbytes(I(1), T(2)) : 0;
    x->peer = I(3) < 0 ? src : (src < 0 || src == I(3)) ? I(3) : -1;
    break;
  case SP_FX_PROBE:
    sp_fstatus_got(a[3], &x->bytes, &x->peer), x->bytes = 0;
    break;
  case SP_FX_IPROBE:
    if (I(3)) sp_fstatus_got(a[4], &x->bytes, &x->peer), x->bytes = 0;
    break;
  case SP_FX_WAIT:
  case SP_FX_TEST:
    if (x->pending && (kind == SP_FX_WAIT || I(1))) {
      MPI_Status c;
      PMPI_Status_f2c(a[kind == SP_FX_WAIT ? 1 : 2], &c);
      sp__mpi_req_got(NULL, &x->one_val, NULL, 1, &c, x->h, x->call, &x->bytes, &x->peer);
    } else if (x->pending) {
      sp__mpi_req_put_back(&x->one, NULL, NULL, &x->one_val, 1);
    }
    break;
  case SP_FX_WAITALL:
    sp_reqs_after(x, NULL, x->n, a[2]);
    break;
  case SP_FX_TESTALL:
    sp_reqs_after(x, NULL, I(2) ? x->n : 0, a[3]);
    break;
  case SP_FX_WAITANY:
  case SP_FX_TESTANY: {
    int done = kind == SP_FX_WAITANY || I(3);
    int idx = I(2) == MPI_UNDEFINED ? -1 : I(2) - 1;
    sp_reqs_after(x, &idx, done && idx >= 0 ? 1 : 0, a[kind == SP_FX_WAITANY ? 3 : 4]);
    break;
  }
  case SP_FX_START:
    sp__mpi_req_start(x->one, x->h, x->call, &x->bytes, &x->peer, &x->tag, &x->comm);
    break;
  case SP_FX_STARTALL: {
    int32_t *one[3] = {&x->peer, &x->tag, &x->comm};
    int many[3] = {0, 0, 0};
    for (int i = 0; i < I(0); i++) {
      int64_t b;
      int32_t v[3];
      if (!sp__mpi_req_start(PMPI_Request_f2c(((const MPI_Fint *)a[1])[i]), x->h, x->call, &b,
                             &v[0], &v[1], &v[2]))
        continue;
      x->bytes += b;
      for (int k = 0; k < 3; k++)
        if (v[k] >= 0 && v[k] != *one[k]) *one[k] = many[k]++ == 0 ? v[k] : -1;
    }
    break;
  }
  case SP_FX_WAITSOME: {
    int m = I(2) == MPI_UNDEFINED ? 0 : I(2);
    int *idx = m > 0 ? malloc((size_t)m * sizeof *idx) : NULL;
    for (int j = 0; idx && j < m; j++) idx[j] = ((const MPI_Fint *)a[3])[j] - 1;
    sp_reqs_after(x, idx, idx ? m : 0, a[4]);
    free(idx);
    break;
  }
  default:
    break;
  }
}

/* The tag a received message had, from a Fortran status; -1 when nothing matched. */
static int32_t sp_fstatus_tag(const void *f) {
  MPI_Status c;
  if (PMPI_Status_f2c((const MPI_Fint *)f, &c) != MPI_SUCCESS || c.MPI_SOURCE < 0) return -1;
  return c.MPI_TAG;
}

/* Which argument is the communicator, per kind (code: the call, for the
 * kind NONE, which Barrier shares with Win_fence); -1 for none. */
static int sp_fx_comm_arg(sp_fx_kind_t kind, int32_t code) {
  switch (kind) {
  case SP_FX_NONE:
    return code == SP_MPI_CALL_BARRIER || code == SP_MPI_CALL_IBARRIER ? 0 : -1;
  case SP_FX_PROBE:
  case SP_FX_IPROBE:
    return 2;
  case SP_FX_BCAST:
    return 4;
  case SP_FX_SEND:
  case SP_FX_RECV:
  case SP_FX_IRECV:
  case SP_FX_TWICE:
  case SP_FX_REDUCE_SCATTER:
  case SP_FX_RSBLOCK:
    return 5;
  case SP_FX_REDUCE:
  case SP_FX_ALLGATHER:
  case SP_FX_ALLTOALL:
    return 6;
  case SP_FX_SENDRECV_REPLACE:
  case SP_FX_GATHER:
  case SP_FX_SCATTER:
  case SP_FX_ALLGATHERV:
    return 7;
  case SP_FX_GATHERV:
  case SP_FX_SCATTERV:
  case SP_FX_ALLTOALLV:
    return 8;
  case SP_FX_SENDRECV:
    return 10;
  default:
    return -1;
  }
}

/* The call's tag and communicator id by the C rules
 * (docs/automatic-regions.md "Tags and communicators"). */
static void sp_fx_tc(sp_fx_kind_t kind, void **a, sp_fx_t *x) {
  const int k = sp_fx_comm_arg(kind, x->code);
  if (k >= 0) x->comm = sp__mpi_comm_id(C(k));
  switch (kind) {
  case SP_FX_SEND:
    x->tag = I(3) >= 0 ? I(4) : -1;
    break;
  case SP_FX_IRECV:
    x->tag = I(3) != MPI_PROC_NULL && I(4) >= 0 ? I(4) : -1;
    break;
  case SP_FX_RECV:
    x->tag = sp_fstatus_tag(a[6]);
    break;
  case SP_FX_PROBE:
    x->tag = sp_fstatus_tag(a[3]);
    break;
  case SP_FX_IPROBE:
    x->tag = I(3) ? sp_fstatus_tag(a[4]) : -1;
    break;
  case SP_FX_SENDRECV:
  case SP_FX_SENDRECV_REPLACE: { /* the send tag when the received one is the same */
    const int32_t rt = sp_fstatus_tag(a[kind == SP_FX_SENDRECV ? 11 : 8]);
    x->tag = I(3) < 0 ? rt : (rt < 0 || rt == I(4)) ? I(4) : -1;
    break;
  }
  default:
    break;
  }
}

/* A Sendrecv's halves as completions of the call (sp__mpi_sendrecv_done),
 * its communicator id from sp_fx_tc. */
static void sp_fx_sendrecv_done(sp_fx_kind_t kind, void **a, const sp_fx_t *x) {
  const void *st = a[kind == SP_FX_SENDRECV ? 11 : 8];
  int64_t rbytes;
  int32_t src;
  sp_fstatus_got(st, &rbytes, &src);
  const int64_t sbytes = I(3) >= 0 ? sp__mpi_tbytes(I(1), T(2)) : 0;
  sp__mpi_sendrecv_done(x->h, x->call, x->comm, I(3) >= 0 ? I(3) : -1, I(4), sbytes, src,
                        sp_fstatus_tag(st), rbytes);
}

void sp__fx_after(sp_fx_kind_t kind, void **a, sp_fx_t *x) {
  sp_fx_tc(kind, a, x);
  if (kind == SP_FX_SENDRECV || kind == SP_FX_SENDRECV_REPLACE) sp_fx_sendrecv_done(kind, a, x);
  switch (kind) {
  case SP_FX_BCAST:
    x->bytes = sp__mpi_b_bcast(I(1), T(2));
    x->peer = sp__mpi_peer(I(3));
    break;
  case SP_FX_REDUCE:
    x->bytes = sp__mpi_b_reduce(IP(0), I(2), T(3), I(5), C(6));
    x->peer = sp__mpi_peer(I(5));
    break;
  case SP_FX_TWICE:
    x->bytes = sp__mpi_b_twice(I(2), T(3));
    break;
  case SP_FX_GATHER:
    x->bytes = sp__mpi_b_gather(IP(0), I(1), T(2), NULL, I(4), T(5), I(6), C(7));
    x->peer = sp__mpi_peer(I(6));
    break;
  case SP_FX_GATHERV:
    x->bytes = sp__mpi_b_gather(IP(0), I(1), T(2), a[4], 0, T(6), I(7), C(8));
    x->peer = sp__mpi_peer(I(7));
    break;
  case SP_FX_SCATTER:
    x->bytes = sp__mpi_b_scatter(NULL, I(1), T(2), IP(3), I(4), T(5), I(6), C(7));
    x->peer = sp__mpi_peer(I(6));
    break;
  case SP_FX_SCATTERV:
    x->bytes = sp__mpi_b_scatter(a[1], 0, T(3), IP(4), I(5), T(6), I(7), C(8));
    x->peer = sp__mpi_peer(I(7));
    break;
  case SP_FX_ALLGATHER:
    x->bytes = sp__mpi_b_allgather(IP(0), I(1), T(2), NULL, I(4), T(5), C(6));
    break;
  case SP_FX_ALLGATHERV:
    x->bytes = sp__mpi_b_allgather(IP(0), I(1), T(2), a[4], 0, T(6), C(7));
    break;
  case SP_FX_ALLTOALL:
    x->bytes = sp__mpi_b_alltoall(IP(0), NULL, I(1), T(2), NULL, I(4), T(5), C(6));
    break;
  case SP_FX_ALLTOALLV:
    x->bytes = sp__mpi_b_alltoall(IP(0), a[1], 0, T(3), a[5], 0, T(7), C(8));
    break;
  case SP_FX_REDUCE_SCATTER:
    x->bytes = sp__mpi_b_reduce_scatter(a[2], T(3), C(5));
    break;
  case SP_FX_RSBLOCK:
    x->bytes = sp__mpi_b_reduce_scatter_block(I(2), T(3), C(5));
    break;
  case SP_FX_RMA:
    x->bytes = I(3) >= 0 ? sp__mpi_tbytes(I(1), T(2)) : 0;
    x->peer = sp__mpi_peer(I(3));
    break;
  case SP_FX_WIN_LOCK:
    x->peer = sp__mpi_peer(I(1));
    break;
  case SP_FX_WIN_UNLOCK:
    x->peer = sp__mpi_peer(I(0));
    break;
  default:
    sp_fx_p2p(kind, a, x);
    break;
  }
}

void sp__fx_persist(void **a, int recv) {
  if (sp__mpi_call_handle(SP_MPI_CALL_START) < 0) return;
  if (a[7] && I(7) != MPI_SUCCESS) return;
  MPI_Request r = PMPI_Request_f2c(I(6));
  const int32_t comm = sp__mpi_comm_id(C(5));
  const sp_req_val_t v = recv ? (sp_req_val_t){0, -1, -1, 1, -1, comm, -1, -1}
                              : (sp_req_val_t){I(3) >= 0 ? sp__mpi_tbytes(I(1), T(2)) : 0,
                                               -1,
                                               sp__mpi_peer(I(3)),
                                               0,
                                               I(4),
                                               comm,
                                               -1,
                                               -1};
  sp__mpi_req_persist(r, &v);
}
