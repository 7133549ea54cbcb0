/* mpi_comms.c - this rank's table of communicator ids (mpi_comms.h).
 *
 * mpi_comm_ids.c gives each communicator an id agreed by its members and
 * describes it here once; finalize copies the table into rank<N>/mpi
 * (plan.c, layout.c), and the spill file gets each entry before the first
 * events spilled after it was made (spill.c), so a merge writes the same.
 * Kept for the process's life: ids are never reused. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_comms.h"
#include "spill_format.h"

static pthread_mutex_t sp_comm_lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t sp_ncomms, sp_comms_cap;
static int32_t *sp_comm_ids, *sp_comm_sizes; /* in the order set */
static int64_t *sp_comm_offsets;             /* each one's first member */
static int64_t sp_nmembers, sp_members_cap;
static int32_t *sp_comm_members;

static int sp_comm_grow(int32_t size) {
  if (sp_ncomms == sp_comms_cap) {
    int32_t ncap = sp_comms_cap ? sp_comms_cap * 2 : 16;
    int32_t *ni = realloc(sp_comm_ids, (size_t)ncap * sizeof *ni);
    if (ni) sp_comm_ids = ni;
    int32_t *ns = realloc(sp_comm_sizes, (size_t)ncap * sizeof *ns);
    if (ns) sp_comm_sizes = ns;
    int64_t *no = realloc(sp_comm_offsets, (size_t)ncap * sizeof *no);
    if (no) sp_comm_offsets = no;
    if (!ni || !ns || !no) return -1;
    sp_comms_cap = ncap;
  }
  if (sp_nmembers + size > sp_members_cap) {
    int64_t ncap = sp_members_cap ? sp_members_cap : 64;
    while (ncap < sp_nmembers + size) ncap *= 2;
    int32_t *nm = realloc(sp_comm_members, (size_t)ncap * sizeof *nm);
    if (!nm) return -1;
    sp_comm_members = nm;
    sp_members_cap = ncap;
  }
  return 0;
}

int sp__mpi_comm_set(int32_t id, int32_t size, const int32_t *world_ranks) {
  if (id < 0 || size < 0) return -1;
  pthread_mutex_lock(&sp_comm_lock);
  int rc = 0;
  for (int32_t i = 0; i < sp_ncomms && rc == 0; i++)
    if (sp_comm_ids[i] == id) rc = -1;
  if (rc == 0) rc = sp_comm_grow(size);
  if (rc == 0) {
    if (size > 0)
      memcpy(sp_comm_members + sp_nmembers, world_ranks, (size_t)size * sizeof *world_ranks);
    sp_comm_ids[sp_ncomms] = id;
    sp_comm_sizes[sp_ncomms] = size;
    sp_comm_offsets[sp_ncomms++] = sp_nmembers;
    sp_nmembers += size;
  }
  pthread_mutex_unlock(&sp_comm_lock);
  return rc;
}

/* Entry of id, or -1 (under the lock). */
static int32_t sp_comm_entry(int32_t id) {
  for (int32_t i = 0; i < sp_ncomms; i++)
    if (sp_comm_ids[i] == id) return i;
  return -1;
}

int sp__mpi_comms(int32_t *n, int32_t **sizes, int64_t *nmembers, int32_t **members) {
  *n = 0;
  *nmembers = 0;
  *sizes = *members = NULL;
  pthread_mutex_lock(&sp_comm_lock);
  int32_t top = -1;
  for (int32_t i = 0; i < sp_ncomms; i++) top = sp_comm_ids[i] > top ? sp_comm_ids[i] : top;
  int rc = 0;
  if (top >= 0) {
    *sizes = calloc((size_t)top + 1, sizeof **sizes);
    *members = malloc((size_t)(sp_nmembers > 0 ? sp_nmembers : 1) * sizeof **members);
    rc = *sizes && *members ? 0 : SP_ENOMEM;
  }
  for (int32_t id = 0; rc == 0 && id <= top; id++) {
    int32_t e = sp_comm_entry(id);
    if (e < 0) continue; /* an id of communicators this rank is not in */
    (*sizes)[id] = sp_comm_sizes[e];
    memcpy(*members + *nmembers, sp_comm_members + sp_comm_offsets[e],
           (size_t)sp_comm_sizes[e] * sizeof **members);
    *nmembers += sp_comm_sizes[e];
  }
  pthread_mutex_unlock(&sp_comm_lock);
  if (rc != 0) {
    free(*sizes);
    free(*members);
    *sizes = *members = NULL;
    *nmembers = 0;
    return rc;
  }
  *n = top + 1;
  return 0;
}

int sp__mpi_comms_spill(int (*rec)(uint32_t type, const void *p, size_t n), int32_t *done) {
  int rc = 0;
  pthread_mutex_lock(&sp_comm_lock);
  for (; rc == 0 && *done < sp_ncomms; ++*done) {
    const int32_t e = *done, size = sp_comm_sizes[e];
    const size_t n = 2 * sizeof(int32_t) + (size_t)size * sizeof(int32_t);
    int32_t *p = malloc(n);
    if (!p) {
      rc = SP_ENOMEM;
      break;
    }
    p[0] = sp_comm_ids[e];
    p[1] = size;
    if (size > 0) memcpy(p + 2, sp_comm_members + sp_comm_offsets[e], (size_t)size * sizeof *p);
    rc = rec(SP_SPILL_MPI_COMMS, p, n);
    free(p);
    if (rc != 0) break;
  }
  pthread_mutex_unlock(&sp_comm_lock);
  return rc;
}
