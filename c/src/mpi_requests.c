/* mpi_requests.c - which pending requests are receives (profile_mpi).
 *
 * A nonblocking receive's bytes and source are known only when a wait or
 * test completes it: MPI_Irecv puts its request here, and the wait/test
 * wrappers take it out and read the completed status. One small
 * open-addressing table under a mutex; touched only by recorded MPI
 * calls. A table full of requests never completed (freed with
 * MPI_Request_free) stops taking new ones: those receives' values are
 * then recorded as 0 bytes at their wait. */
#include <stdint.h>
#include <string.h>

#include "mpi_profile.h"
#include "mpi_requests.h"

#define SP_REQ_SLOTS 4096 /* power of two */
#define SP_REQ_EMPTY 0u
#define SP_REQ_GONE 1u /* a removed entry: probing goes on past it */

static uint64_t sp_req_keys[SP_REQ_SLOTS];
static int sp_req_used; /* entries, removed ones included */
static pthread_mutex_t sp_req_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t sp_req_key(MPI_Request r) {
  uint64_t k = 0;
  memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
  return k + 2u; /* never EMPTY or GONE */
}

static uint32_t sp_req_hash(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40); }

/* Slot of k, or -1. Under the lock. */
static int sp_req_find(uint64_t k) {
  for (uint32_t i = sp_req_hash(k), n = 0; n < SP_REQ_SLOTS; i++, n++) {
    uint64_t v = sp_req_keys[i & (SP_REQ_SLOTS - 1)];
    if (v == k) return (int)(i & (SP_REQ_SLOTS - 1));
    if (v == SP_REQ_EMPTY) return -1;
  }
  return -1;
}

void sp__mpi_req_recv(MPI_Request req) {
  if (req == MPI_REQUEST_NULL) return;
  uint64_t k = sp_req_key(req);
  pthread_mutex_lock(&sp_req_lock);
  if (sp_req_used == SP_REQ_SLOTS * 3 / 4) { /* rebuild without the removed entries */
    static uint64_t keep[SP_REQ_SLOTS];      /* under the lock; not on a host thread's stack */
    int n = 0;
    for (int i = 0; i < SP_REQ_SLOTS; i++)
      if (sp_req_keys[i] > SP_REQ_GONE) keep[n++] = sp_req_keys[i];
    memset(sp_req_keys, 0, sizeof sp_req_keys);
    sp_req_used = 0;
    for (int j = 0; j < n && n < SP_REQ_SLOTS / 2; j++) {
      uint32_t i = sp_req_hash(keep[j]);
      while (sp_req_keys[i & (SP_REQ_SLOTS - 1)] != SP_REQ_EMPTY) i++;
      sp_req_keys[i & (SP_REQ_SLOTS - 1)] = keep[j];
      sp_req_used++;
    }
  }
  if (sp_req_used < SP_REQ_SLOTS * 3 / 4 && sp_req_find(k) < 0) {
    uint32_t i = sp_req_hash(k);
    while (sp_req_keys[i & (SP_REQ_SLOTS - 1)] > SP_REQ_GONE) i++;
    if (sp_req_keys[i & (SP_REQ_SLOTS - 1)] == SP_REQ_EMPTY) sp_req_used++;
    sp_req_keys[i & (SP_REQ_SLOTS - 1)] = k;
  }
  pthread_mutex_unlock(&sp_req_lock);
}

int sp__mpi_req_any_recv(const MPI_Request *reqs, int n) {
  int any = 0;
  pthread_mutex_lock(&sp_req_lock);
  for (int i = 0; reqs && i < n && !any; i++)
    any = reqs[i] != MPI_REQUEST_NULL && sp_req_find(sp_req_key(reqs[i])) >= 0;
  pthread_mutex_unlock(&sp_req_lock);
  return any;
}

void sp__mpi_req_done(const MPI_Request *before, const int *idx, int n, const MPI_Status *st,
                      int64_t *bytes, int32_t *peer) {
  int npeers = 0;
  *bytes = 0;
  *peer = -1;
  for (int j = 0; j < n; j++) {
    int i = idx ? idx[j] : j;
    if (i < 0 || before[i] == MPI_REQUEST_NULL) continue;
    pthread_mutex_lock(&sp_req_lock);
    int slot = sp_req_find(sp_req_key(before[i]));
    if (slot >= 0) sp_req_keys[slot] = SP_REQ_GONE;
    pthread_mutex_unlock(&sp_req_lock);
    if (slot < 0 || !st) continue;
    int64_t b;
    int32_t p;
    sp__mpi_status_got(&st[idx ? j : i], &b, &p);
    *bytes += b;
    if (p >= 0 && p != *peer) *peer = npeers++ == 0 ? p : -1;
  }
}
