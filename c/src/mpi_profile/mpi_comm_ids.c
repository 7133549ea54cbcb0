/* mpi_comm_ids.c - the communicator id of each recorded MPI call (mpi_extra.h).
 *
 * Pairing a send with its receive needs the communicator they used (MPI
 * matches per communicator, source and tag). A handle is no id: it means
 * nothing in the file and MPI reuses it after MPI_Comm_free. So each
 * communicator a recorded call names gets this rank's next id on first
 * sight (MPI_COMM_WORLD first: 0), its size and members' world ranks go
 * into the table that is written as rank<N>/mpi (layout.c), and a small
 * cache maps live handles to ids. The lookup on every call is a scan of
 * that cache, lock-free: a few entries in a run with a few communicators
 * (docs/performance.md, "MPI call tag and communicator"). MPI_Comm_free
 * drops a handle, so a reused one gets a new id. Beyond SP_COMM_LIVE live
 * communicators, calls on the others get -1 (not known). */
#include <stdlib.h>

#include "mpi_comm_ids.h"
#include "mpi_profile.h"

#define SP_COMM_LIVE 256

typedef struct sp_comm_ent {
  MPI_Comm comm; /* MPI_COMM_NULL: a free slot */
  int32_t id;
} sp_comm_ent_t;

static sp_comm_ent_t sp_comm_cache[SP_COMM_LIVE];
static int32_t sp_comm_used;     /* slots ever used, published after the slot */
static unsigned sp_comm_session; /* sp__session + 1 the cache belongs to */
static pthread_mutex_t sp_comm_lock = PTHREAD_MUTEX_INITIALIZER;

/* The world ranks of comm's members (its remote group's, for an
 * intercommunicator) into the table: the new id, or -1. */
static int32_t sp_comm_describe(MPI_Comm comm) {
  int inter = 0, n = 0;
  MPI_Group g = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_test_inter(comm, &inter);
  if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
    return -1;
  int32_t id = -1;
  int *in = NULL, *out = NULL;
  if (PMPI_Group_size(g, &n) == MPI_SUCCESS && n >= 0 &&
      PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
    in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    for (int i = 0; in && i < n; i++) in[i] = i;
    if (in && out && PMPI_Group_translate_ranks(g, n, in, world, out) == MPI_SUCCESS) {
      for (int i = 0; i < n; i++) out[i] = out[i] == MPI_UNDEFINED ? -1 : out[i];
      id = sp__mpi_comm_add(n, (const int32_t *)out);
    }
  }
  free(in);
  free(out);
  if (world != MPI_GROUP_NULL) PMPI_Group_free(&world);
  PMPI_Group_free(&g);
  return id;
}

static int32_t sp_comm_cached(MPI_Comm comm) {
  int32_t n = __atomic_load_n(&sp_comm_used, __ATOMIC_ACQUIRE);
  for (int32_t i = 0; i < n; i++)
    if (__atomic_load_n(&sp_comm_cache[i].comm, __ATOMIC_ACQUIRE) == comm)
      return __atomic_load_n(&sp_comm_cache[i].id, __ATOMIC_RELAXED);
  return -2;
}

/* Into a free slot: the id before the handle, so no reader sees the pair half made. */
static void sp_comm_put(MPI_Comm comm, int32_t id) {
  int32_t i = 0;
  while (i < sp_comm_used && sp_comm_cache[i].comm != MPI_COMM_NULL) i++;
  if (i == SP_COMM_LIVE) return;
  __atomic_store_n(&sp_comm_cache[i].id, id, __ATOMIC_RELAXED);
  __atomic_store_n(&sp_comm_cache[i].comm, comm, __ATOMIC_RELEASE);
  if (i == sp_comm_used) __atomic_store_n(&sp_comm_used, i + 1, __ATOMIC_RELEASE);
}

static __attribute__((noinline)) int32_t sp_comm_register(MPI_Comm comm) {
  pthread_mutex_lock(&sp_comm_lock);
  if (sp_comm_session != sp__session + 1u) { /* a new session: new ids from 0 */
    for (int32_t i = 0; i < sp_comm_used; i++)
      __atomic_store_n(&sp_comm_cache[i].comm, MPI_COMM_NULL, __ATOMIC_RELAXED);
    sp_comm_put(MPI_COMM_WORLD, sp_comm_describe(MPI_COMM_WORLD));
    __atomic_store_n(&sp_comm_session, sp__session + 1u, __ATOMIC_RELEASE);
  }
  int32_t id = sp_comm_cached(comm);
  if (id == -2 && sp_comm_used < SP_COMM_LIVE) {
    id = sp_comm_describe(comm);
    if (id >= 0) sp_comm_put(comm, id);
  }
  pthread_mutex_unlock(&sp_comm_lock);
  return id < 0 ? -1 : id;
}

int32_t sp__mpi_comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return -1;
  if (SP_LIKELY(__atomic_load_n(&sp_comm_session, __ATOMIC_ACQUIRE) == sp__session + 1u)) {
    int32_t id = sp_comm_cached(comm);
    if (SP_LIKELY(id != -2)) return id;
  }
  return sp_comm_register(comm);
}

/* Forgets comm before MPI may hand out its handle again. */
static void sp_comm_forget(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || __atomic_load_n(&sp_comm_used, __ATOMIC_ACQUIRE) == 0) return;
  pthread_mutex_lock(&sp_comm_lock);
  for (int32_t i = 0; i < sp_comm_used; i++)
    if (sp_comm_cache[i].comm == comm)
      __atomic_store_n(&sp_comm_cache[i].comm, MPI_COMM_NULL, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&sp_comm_lock);
}

int MPI_Comm_free(MPI_Comm *comm) {
  if (comm) sp_comm_forget(*comm);
  return PMPI_Comm_free(comm);
}

int MPI_Comm_disconnect(MPI_Comm *comm) {
  if (comm) sp_comm_forget(*comm);
  return PMPI_Comm_disconnect(comm);
}
