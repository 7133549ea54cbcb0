/* mpi_requests.c - which pending requests are receives, and what
 * persistent requests do (profile_mpi).
 *
 * A nonblocking receive's bytes and source are known only when a wait or
 * test completes it: MPI_Irecv (or MPI_Start of a receive) puts its
 * request here, and the wait/test wrappers take it out before their PMPI
 * call and read the completed status after it (mpi_profile_wait.c).
 * Nonblocking sends are here too, so that each completion (receive or
 * send) is recorded with the call that posted it (mpi_extra.h). A
 * persistent request's kind, bytes and peer are kept from its *_init call
 * to MPI_Request_free, for MPI_Start. Two small open-addressing tables
 * under one mutex; touched only by recorded MPI calls. A table full of
 * requests never completed (nor freed) stops taking new ones: those
 * receives' values are then recorded as 0 bytes at their wait, those
 * persistent requests' starts as 0 bytes. */
#include <stdint.h>
#include <string.h>

#include "mpi_profile.h"
#include "mpi_requests.h"

#define SP_REQ_SLOTS 4096 /* power of two */
#define SP_REQ_MASK (SP_REQ_SLOTS - 1)
#define SP_REQ_EMPTY 0u
#define SP_REQ_GONE 1u /* a removed entry: probing goes on past it */

typedef struct sp_req_table {
  uint64_t keys[SP_REQ_SLOTS];
  sp_req_val_t vals[SP_REQ_SLOTS];
  int used; /* entries, removed ones included */
} sp_req_table_t;

static sp_req_table_t sp_pending; /* receives until their wait */
static sp_req_table_t sp_persist; /* persistent requests until freed */
static pthread_mutex_t sp_req_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t sp_req_key(MPI_Request r) {
  uint64_t k = 0;
  memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
  return k + 2u; /* never EMPTY or GONE */
}

static uint32_t sp_req_hash(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40); }

/* Slot of k, or -1. Under the lock. */
static int sp_req_find(const sp_req_table_t *t, uint64_t k) {
  for (uint32_t i = sp_req_hash(k), n = 0; n < SP_REQ_SLOTS; i++, n++) {
    uint64_t v = t->keys[i & SP_REQ_MASK];
    if (v == k) return (int)(i & SP_REQ_MASK);
    if (v == SP_REQ_EMPTY) return -1;
  }
  return -1;
}

/* Puts the live entries back without the removed ones. Under the lock. */
static void sp_req_rebuild(sp_req_table_t *t) {
  static uint64_t keep[SP_REQ_SLOTS]; /* under the lock; not on a host thread's stack */
  static sp_req_val_t keepv[SP_REQ_SLOTS];
  int n = 0;
  for (int i = 0; i < SP_REQ_SLOTS; i++)
    if (t->keys[i] > SP_REQ_GONE) keep[n] = t->keys[i], keepv[n++] = t->vals[i];
  memset(t->keys, 0, sizeof t->keys);
  t->used = 0;
  for (int j = 0; j < n && n < SP_REQ_SLOTS / 2; j++) {
    uint32_t i = sp_req_hash(keep[j]);
    while (t->keys[i & SP_REQ_MASK] != SP_REQ_EMPTY) i++;
    t->keys[i & SP_REQ_MASK] = keep[j];
    t->vals[i & SP_REQ_MASK] = keepv[j];
    t->used++;
  }
}

/* Adds k (or updates its value). dup: adds another entry even when k is
 * there, after every entry of k in its probe sequence, so that the oldest
 * one is found first (sp_req_find). Under the lock. */
static void sp_req_put(sp_req_table_t *t, uint64_t k, sp_req_val_t v, int dup) {
  if (t->used == SP_REQ_SLOTS * 3 / 4) sp_req_rebuild(t);
  int at = dup ? -1 : sp_req_find(t, k);
  if (at >= 0) {
    t->vals[at] = v;
    return;
  }
  if (t->used >= SP_REQ_SLOTS * 3 / 4) return;
  uint32_t i = sp_req_hash(k);
  while (t->keys[i & SP_REQ_MASK] > (dup ? SP_REQ_EMPTY : SP_REQ_GONE)) i++;
  if (t->keys[i & SP_REQ_MASK] == SP_REQ_EMPTY) t->used++;
  t->keys[i & SP_REQ_MASK] = k;
  t->vals[i & SP_REQ_MASK] = v;
}

/* Removes k; 1 when it was there. Under the lock. */
static int sp_req_remove(sp_req_table_t *t, uint64_t k) {
  int at = sp_req_find(t, k);
  if (at >= 0) t->keys[at] = SP_REQ_GONE;
  return at >= 0;
}

/* A send MPI completed at once may get a request handle shared by all such
 * (Open MPI's ob1 gives &ompi_request_empty): so sends add an entry even
 * when their handle is pending, and waits take the oldest first. */
void sp__mpi_req_post(MPI_Request req, const sp_req_val_t *v) {
  if (req == MPI_REQUEST_NULL) return;
  pthread_mutex_lock(&sp_req_lock);
  sp_req_put(&sp_pending, sp_req_key(req), *v, !v->recv);
  pthread_mutex_unlock(&sp_req_lock);
}

int sp__mpi_req_take(const MPI_Request *reqs, int n, unsigned char *taken, sp_req_val_t *vals) {
  int count = 0;
  pthread_mutex_lock(&sp_req_lock);
  for (int i = 0; reqs && i < n; i++) {
    int at = reqs[i] != MPI_REQUEST_NULL ? sp_req_find(&sp_pending, sp_req_key(reqs[i])) : -1;
    if (at >= 0) {
      vals[i] = sp_pending.vals[at];
      sp_pending.keys[at] = SP_REQ_GONE;
    }
    if (taken) taken[i] = (unsigned char)(at >= 0);
    count += at >= 0;
  }
  pthread_mutex_unlock(&sp_req_lock);
  return count;
}

void sp__mpi_req_put_back(const MPI_Request *before, const unsigned char *taken,
                          const unsigned char *done, const sp_req_val_t *vals, int n) {
  pthread_mutex_lock(&sp_req_lock);
  for (int i = 0; i < n; i++)
    if ((taken ? taken[i] : 1) && !(done && done[i]))
      sp_req_put(&sp_pending, sp_req_key(before[i]), vals[i], !vals[i].recv);
  pthread_mutex_unlock(&sp_req_lock);
}

void sp__mpi_req_got(const unsigned char *taken, const sp_req_val_t *vals, const int *idx, int m,
                     const MPI_Status *st, int32_t wait_region, int64_t wait_call, int64_t *bytes,
                     int32_t *peer) {
  int npeers = 0;
  *bytes = 0;
  *peer = -1;
  const int32_t thread = sp__mpi_thread();
  for (int j = 0; st && j < m; j++) {
    int i = idx ? idx[j] : j;
    if (i < 0 || (taken && !taken[i])) continue;
    const sp_req_val_t *v = &vals[i];
    sp_mpi_done_t d = {wait_call,      v->post_call, v->bytes, wait_region, v->post_region, thread,
                       v->post_thread, v->peer,      v->tag,   v->comm,     !v->recv};
    if (v->recv) {
      int64_t b;
      int32_t p;
      sp__mpi_status_got(&st[idx ? j : i], &b, &p);
      *bytes += b;
      if (p >= 0 && p != *peer) *peer = npeers++ == 0 ? p : -1;
      d.bytes = b;
      d.peer = p;
      d.tag = p >= 0 ? st[idx ? j : i].MPI_TAG : -1;
    }
    sp__mpi_done_add(&d);
  }
}

void sp__mpi_sendrecv_done(int32_t h, int64_t call, int32_t comm, int32_t dest, int32_t stag,
                           int64_t sbytes, int32_t src, int32_t rtag, int64_t rbytes) {
  if (call < 0 || (dest >= 0 && dest == src && stag == rtag)) return; /* the call says it */
  const int32_t thread = sp__mpi_thread();
  if (dest >= 0) {
    const sp_mpi_done_t d = {call, call, sbytes, h, h, thread, thread, dest, stag, comm, 1};
    sp__mpi_done_add(&d);
  }
  if (src >= 0) {
    const sp_mpi_done_t d = {call, call, rbytes, h, h, thread, thread, src, rtag, comm, 0};
    sp__mpi_done_add(&d);
  }
}

void sp__mpi_req_persist(MPI_Request req, const sp_req_val_t *v) {
  if (req == MPI_REQUEST_NULL) return;
  pthread_mutex_lock(&sp_req_lock);
  sp_req_put(&sp_persist, sp_req_key(req), *v, 0);
  pthread_mutex_unlock(&sp_req_lock);
}

int sp__mpi_req_start(MPI_Request req, int32_t post_region, int64_t post_call, int64_t *bytes,
                      int32_t *peer, int32_t *tag, int32_t *comm) {
  *bytes = 0;
  *peer = *tag = *comm = -1;
  if (req == MPI_REQUEST_NULL) return 0;
  uint64_t k = sp_req_key(req);
  pthread_mutex_lock(&sp_req_lock);
  int at = sp_req_find(&sp_persist, k);
  if (at >= 0) {
    sp_req_val_t v = sp_persist.vals[at];
    v.post_region = post_region;
    v.post_call = post_call;
    v.post_thread = sp__mpi_thread();
    sp_req_put(&sp_pending, k, v, 0);
    if (!v.recv) *bytes = v.bytes, *peer = v.peer, *tag = v.tag;
    *comm = v.comm;
  }
  pthread_mutex_unlock(&sp_req_lock);
  return at >= 0;
}

void sp__mpi_req_forget(MPI_Request req) {
  if (req == MPI_REQUEST_NULL) return;
  uint64_t k = sp_req_key(req);
  pthread_mutex_lock(&sp_req_lock);
  sp_req_remove(&sp_persist, k);
  sp_req_remove(&sp_pending, k);
  pthread_mutex_unlock(&sp_req_lock);
}
