/* mpi_comm_ids.c - one id per communicator, the same on all its members.
 *
 * Pairing a send with its receive needs the communicator they used (MPI
 * matches per communicator, source and tag), and the two sides are on
 * different ranks: so an id must mean the same communicator on each of its
 * members. A handle is no id (it means nothing in the file and MPI reuses
 * it after MPI_Comm_free). Each call that makes a communicator
 * (mpi_comm_create.c, and the Fortran ones in mpi_profile_fortran.c) ends
 * with sp__mpi_comm_created: the members take the largest of their next
 * free ids (one MPI_Allreduce(MAX) over the new communicator: creation is
 * collective and rare), and each then moves its next free id past it. A
 * rank's ids only grow, so no two communicators a rank holds share one,
 * and a member's id is every member's. MPI_COMM_WORLD is 0, MPI_COMM_SELF
 * 1. The members' world ranks go into the table written as rank<N>/mpi
 * (mpi_extra.h). Calls look the id up in a direct-mapped cache of one word
 * per entry (mpi_comm_ids.h), inline; a miss takes the lock here. */
#include <pthread.h>
#include <stdlib.h>

#include "mpi_comm_ids.h"
#include "mpi_extra.h"

uint64_t sp__mpi_comm_cache[SP_COMM_CACHE];

typedef struct sp_comm_live {
  uint64_t key;
  int32_t id;
} sp_comm_live_t;

/* An MPI_Comm_idup whose id is being agreed (sp__mpi_comm_idup_started). */
typedef struct sp_comm_pending {
  struct sp_comm_pending *next;
  uint64_t key;
  MPI_Request req;
  int32_t mine, got;
} sp_comm_pending_t;

static pthread_mutex_t sp_comm_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_comm_live_t *sp_live; /* handles made through a wrapper, until freed */
static int32_t sp_nlive, sp_live_cap;
static sp_comm_pending_t *sp_pending;
static int32_t sp_comm_next = SP_COMM_SELF_ID + 1; /* this rank's next free id */
static int sp_comm_based;

/* Into the cache (under the lock): id -1 is cached too, as "not known". */
static void sp_cache_put(uint64_t k, int32_t id) {
  if (k >> 48) return;
  const uint64_t e = (k << 16) | (uint64_t)(id >= 0 && id < 0xFFFF ? id + 1 : 0);
  __atomic_store_n(&sp__mpi_comm_cache[sp__mpi_comm_slot(k)], e, __ATOMIC_RELAXED);
}

static void sp_cache_drop(uint64_t k) {
  uint64_t *e = &sp__mpi_comm_cache[sp__mpi_comm_slot(k)];
  if ((*e >> 16) == k) __atomic_store_n(e, 0, __ATOMIC_RELAXED);
}

/* comm's members (its remote group's, for an intercommunicator) as world
 * ranks into the table under id: 0, or -1 (no memory, MPI refused, or id
 * already this rank's: see sp__mpi_comm_set). */
static int sp_comm_describe(MPI_Comm comm, int32_t id) {
  int inter = 0, n = 0, rc = -1;
  MPI_Group g = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_test_inter(comm, &inter);
  if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
    return -1;
  int *in = NULL, *out = NULL;
  if (PMPI_Group_size(g, &n) == MPI_SUCCESS && n >= 0 &&
      PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
    in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    for (int i = 0; in && i < n; i++) in[i] = i;
    if (in && out && PMPI_Group_translate_ranks(g, n, in, world, out) == MPI_SUCCESS) {
      for (int i = 0; i < n; i++) out[i] = out[i] == MPI_UNDEFINED ? -1 : out[i];
      rc = sp__mpi_comm_set(id, n, (const int32_t *)out);
    }
  }
  free(in);
  free(out);
  if (world != MPI_GROUP_NULL) PMPI_Group_free(&world);
  PMPI_Group_free(&g);
  return rc;
}

/* A live handle's entry (under the lock); -1 when not there. */
static int32_t sp_live_find(uint64_t k) {
  for (int32_t i = 0; i < sp_nlive; i++)
    if (sp_live[i].key == k) return i;
  return -1;
}

/* comm has agreed id: describe it, and remember handle -> id. The id
 * becomes -1 when this rank already gave it to another communicator (only
 * possible when creations race in threads or with an MPI_Comm_idup). */
static int32_t sp_comm_register(MPI_Comm comm, int32_t id) {
  sp__mpi_comm_base();
  if (id < 0 || sp_comm_describe(comm, id) != 0) id = -1;
  const uint64_t k = sp__mpi_comm_key(comm);
  pthread_mutex_lock(&sp_comm_lock);
  if (id >= sp_comm_next) sp_comm_next = id + 1;
  int32_t at = sp_live_find(k);
  if (at < 0 && sp_nlive == sp_live_cap) {
    int32_t ncap = sp_live_cap ? 2 * sp_live_cap : 64;
    sp_comm_live_t *nl = realloc(sp_live, (size_t)ncap * sizeof *nl);
    if (nl) sp_live = nl, sp_live_cap = ncap;
  }
  if (at < 0 && sp_nlive < sp_live_cap) at = sp_nlive++;
  if (at >= 0) sp_live[at] = (sp_comm_live_t){k, id};
  sp_cache_put(k, id);
  pthread_mutex_unlock(&sp_comm_lock);
  return id;
}

void sp__mpi_comm_base(void) {
  if (__atomic_load_n(&sp_comm_based, __ATOMIC_ACQUIRE)) return;
  int init = 0, fin = 0;
  if (PMPI_Initialized(&init) != MPI_SUCCESS || !init || PMPI_Finalized(&fin) != MPI_SUCCESS || fin)
    return;
  pthread_mutex_lock(&sp_comm_lock);
  if (!sp_comm_based) {
    sp_comm_describe(MPI_COMM_WORLD, SP_COMM_WORLD_ID);
    sp_comm_describe(MPI_COMM_SELF, SP_COMM_SELF_ID);
    sp_cache_put(sp__mpi_comm_key(MPI_COMM_SELF), SP_COMM_SELF_ID);
    __atomic_store_n(&sp_comm_based, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&sp_comm_lock);
}

void sp__mpi_comm_created(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  pthread_mutex_lock(&sp_comm_lock);
  int32_t mine = sp_comm_next, got = -1;
  pthread_mutex_unlock(&sp_comm_lock);
  /* Over an intercommunicator each group gets the other's maximum: a
   * second round gives both the maximum of all. */
  int rc = PMPI_Allreduce(&mine, &got, 1, MPI_INT32_T, MPI_MAX, comm);
  if (rc == MPI_SUCCESS && inter) {
    int32_t both = got > mine ? got : mine;
    rc = PMPI_Allreduce(&both, &got, 1, MPI_INT32_T, MPI_MAX, comm);
  }
  sp_comm_register(comm, rc == MPI_SUCCESS ? got : -1);
}

void sp__mpi_comm_idup_started(MPI_Comm parent, MPI_Comm comm) {
  int inter = 0;
  if (comm == MPI_COMM_NULL || parent == MPI_COMM_NULL) return;
  PMPI_Comm_test_inter(parent, &inter);
  sp_comm_pending_t *p = inter ? NULL : calloc(1, sizeof *p);
  if (!p) return; /* the new communicator's id stays unknown (-1) */
  p->key = sp__mpi_comm_key(comm);
  pthread_mutex_lock(&sp_comm_lock);
  p->mine = sp_comm_next++; /* creations until it is known propose more */
  pthread_mutex_unlock(&sp_comm_lock);
  /* Started now on every member in the same order as the MPI_Comm_idup,
   * so it completes once all of them made that call: before any member
   * may use the new communicator. */
  if (PMPI_Iallreduce(&p->mine, &p->got, 1, MPI_INT32_T, MPI_MAX, parent, &p->req) != MPI_SUCCESS) {
    free(p);
    return;
  }
  pthread_mutex_lock(&sp_comm_lock);
  p->next = sp_pending;
  sp_pending = p;
  pthread_mutex_unlock(&sp_comm_lock);
}

/* The pending agreement of handle k, taken off the list (under the lock). */
static sp_comm_pending_t *sp_pending_take(uint64_t k) {
  for (sp_comm_pending_t **pp = &sp_pending; *pp; pp = &(*pp)->next)
    if ((*pp)->key == k) {
      sp_comm_pending_t *p = *pp;
      *pp = p->next;
      return p;
    }
  return NULL;
}

/* Finishes an idup's agreement (not under the lock). */
static int32_t sp_pending_finish(sp_comm_pending_t *p, MPI_Comm comm) {
  int32_t got = PMPI_Wait(&p->req, MPI_STATUS_IGNORE) == MPI_SUCCESS ? p->got : -1;
  free(p);
  return sp_comm_register(comm, got);
}

int32_t sp__mpi_comm_id_slow(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return -1;
  if (comm == MPI_COMM_SELF) {
    sp__mpi_comm_base();
    return SP_COMM_SELF_ID;
  }
  const uint64_t k = sp__mpi_comm_key(comm);
  pthread_mutex_lock(&sp_comm_lock);
  int32_t at = sp_live_find(k), id = -1;
  sp_comm_pending_t *p = NULL;
  if (at >= 0)
    id = sp_live[at].id;
  else
    p = sp_pending_take(k);
  if (!p) sp_cache_put(k, id); /* made where no wrapper saw it: -1 */
  pthread_mutex_unlock(&sp_comm_lock);
  return p ? sp_pending_finish(p, comm) : id;
}

void sp__mpi_comm_forget(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) return;
  const uint64_t k = sp__mpi_comm_key(comm);
  pthread_mutex_lock(&sp_comm_lock);
  sp_comm_pending_t *p = sp_pending_take(k);
  pthread_mutex_unlock(&sp_comm_lock);
  if (p) sp_pending_finish(p, comm); /* its request must not outlive it */
  pthread_mutex_lock(&sp_comm_lock);
  int32_t at = sp_live_find(k);
  if (at >= 0) sp_live[at] = sp_live[--sp_nlive];
  sp_cache_drop(k);
  pthread_mutex_unlock(&sp_comm_lock);
}

int MPI_Comm_free(MPI_Comm *comm) {
  if (comm) sp__mpi_comm_forget(*comm);
  return PMPI_Comm_free(comm);
}

int MPI_Comm_disconnect(MPI_Comm *comm) {
  if (comm) sp__mpi_comm_forget(*comm);
  return PMPI_Comm_disconnect(comm);
}
