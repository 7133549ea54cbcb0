/* mpi_profile.c - MPI calls as regions (profile_mpi, SCOPE_PROFILER_PROFILE_MPI).
 *
 * PMPI interposition of the C calls listed in SP_MPI_CALLS (mpi_profile.h;
 * the wrappers are in mpi_profile_p2p.c, _coll.c, _rma_io.c): each wrapper
 * times its PMPI_ call as the region "MPI_<Name>" and stores its bytes and
 * peer (mpi_extra.h). This file registers the regions and holds the
 * helpers that compute the values. Regions are registered
 * on a call's first use in a session, so a rank's file lists only the
 * calls it made. Off (profile_mpi = 0, or no session) a wrapper costs one
 * load and branch. The library's own MPI calls in sp_finalize and sp_report
 * are not recorded (sp__mpi_own_calls, set by sp__par_begin). Open MPI's Fortran
 * bindings call PMPI_ directly, so mpi_profile_fortran.c wraps those. */
#include <mpi.h>

#include "io_calls.h"
#include "mpi_glue.h"
#include "sp_internal.h"
#include "mpi_profile.h"

static const char *const sp_mpi_names[SP_MPI_NCALLS] = {
#define SP__XX(id, name) name,
    SP_MPI_CALLS(SP__XX)
#undef SP__XX
};

static int32_t sp_mpi_handles[SP_MPI_NCALLS]; /* handle + 1; 0: not yet registered */
static unsigned sp_mpi_handles_session;       /* sp__session + 1 they belong to */
static pthread_mutex_t sp_mpi_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) int sp_mpi_register(sp_mpi_call_t call) {
  pthread_mutex_lock(&sp_mpi_lock);
  if (__atomic_load_n(&sp_mpi_handles_session, __ATOMIC_ACQUIRE) != sp__session + 1u) {
    for (int i = 0; i < SP_MPI_NCALLS; i++)
      __atomic_store_n(&sp_mpi_handles[i], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sp_mpi_handles_session, sp__session + 1u, __ATOMIC_RELEASE);
  }
  int h = __atomic_load_n(&sp_mpi_handles[call], __ATOMIC_ACQUIRE) - 1;
  if (h < 0) {
    h = sp_region(sp_mpi_names[call]);
    if (h >= 0) __atomic_store_n(&sp_mpi_handles[call], h + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&sp_mpi_lock);
  sp__mpi_comm_base(); /* ids 0 and 1 in the table, even when no other is made */
  return h < 0 ? -1 : h;
}

int sp__mpi_call_handle(sp_mpi_call_t call) {
  /* MPI-IO calls: with profile_io too (sp__io_on), not inside our own I/O. */
  const int on = sp__state.cfg.profile_mpi ||
                 (call >= SP_MPI_CALL_FILE_FIRST && sp__io_is_on() && !sp__io_own);
  if (SP_LIKELY(!on || sp__mode == SP_MODE_OFF) || sp__mpi_own_calls) return -1;
  if (SP_LIKELY(__atomic_load_n(&sp_mpi_handles_session, __ATOMIC_ACQUIRE) == sp__session + 1u)) {
    int h = __atomic_load_n(&sp_mpi_handles[call], __ATOMIC_ACQUIRE) - 1;
    if (SP_LIKELY(h >= 0)) return h;
  }
  return sp_mpi_register(call);
}

const char *sp__mpi_call_name(sp_mpi_call_t call) { return sp_mpi_names[call]; }

/* ---- the values' helpers (mpi_profile.h) ---- */

int64_t sp__mpi_tbytes(int64_t count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      size < 0)
    return 0;
  return count * (int64_t)size;
}

int64_t sp__mpi_vbytes(const int *counts, int n, MPI_Datatype type) {
  int64_t sum = 0;
  for (int i = 0; counts && i < n; i++) sum += counts[i] > 0 ? counts[i] : 0;
  return sp__mpi_tbytes(sum, type);
}

int sp__mpi_npeers(MPI_Comm comm) {
  int inter = 0, n = 0;
  if (comm == MPI_COMM_NULL) return 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) return 0;
  return n;
}

int sp__mpi_rank(MPI_Comm comm) {
  int r = -1;
  if (comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &r) != MPI_SUCCESS) return -1;
  return r;
}

int sp__mpi_is_root(int root, MPI_Comm comm) {
  if (root == MPI_ROOT) return 1; /* the root group of an intercommunicator */
  int inter = 0;
  if (root < 0 || comm == MPI_COMM_NULL) return 0;
  PMPI_Comm_test_inter(comm, &inter);
  return !inter && root == sp__mpi_rank(comm);
}

void sp__mpi_status_got(const MPI_Status *st, int64_t *bytes, int32_t *peer) {
  int n = 0;
  *bytes = 0;
  *peer = -1;
  if (!st || st->MPI_SOURCE < 0) return; /* MPI_PROC_NULL, MPI_ANY_SOURCE: nothing matched */
  if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n > 0) *bytes = n;
  *peer = st->MPI_SOURCE;
}
