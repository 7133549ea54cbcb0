/* mpi_profile.c - MPI calls as regions (profile_mpi, SCOPE_PROFILER_PROFILE_MPI).
 *
 * PMPI interposition of the C calls listed in SP_MPI_CALLS: each wrapper
 * times its PMPI_ call as the region "MPI_<Name>". Regions are registered
 * on a call's first use in a session, so a rank's file lists only the
 * calls it made. Off (profile_mpi = 0, or no session) a wrapper costs one
 * load and branch. The library's own MPI calls in sp_finalize and sp_report
 * are not recorded (sp__mpi_own_calls, set by sp__par_begin). Open MPI's Fortran
 * bindings call PMPI_ directly, so mpi_profile_fortran.c wraps those. */
#include <mpi.h>

#include "mpi_glue.h"
#include "sp_internal.h"

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
  return h < 0 ? -1 : h;
}

int sp__mpi_call_handle(sp_mpi_call_t call) {
  if (SP_LIKELY(!sp__state.cfg.profile_mpi || sp__mode == SP_MODE_OFF) || sp__mpi_own_calls)
    return -1;
  if (SP_LIKELY(__atomic_load_n(&sp_mpi_handles_session, __ATOMIC_ACQUIRE) == sp__session + 1u)) {
    int h = __atomic_load_n(&sp_mpi_handles[call], __ATOMIC_ACQUIRE) - 1;
    if (SP_LIKELY(h >= 0)) return h;
  }
  return sp_mpi_register(call);
}

/* Times `call` as region id; rc holds its return value. */
#define SP_MPI_TIMED(id, call)                       \
  int sp_h_ = sp__mpi_call_handle(SP_MPI_CALL_##id); \
  if (sp_h_ >= 0) sp_start(sp_h_);                   \
  int sp_rc_ = call;                                 \
  if (sp_h_ >= 0) sp_stop(sp_h_);                    \
  return sp_rc_

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  SP_MPI_TIMED(SEND, PMPI_Send(buf, count, type, dest, tag, comm));
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  SP_MPI_TIMED(RECV, PMPI_Recv(buf, count, type, source, tag, comm, status));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req) {
  SP_MPI_TIMED(ISEND, PMPI_Isend(buf, count, type, dest, tag, comm, req));
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req) {
  SP_MPI_TIMED(IRECV, PMPI_Irecv(buf, count, type, source, tag, comm, req));
}

int MPI_Wait(MPI_Request *req, MPI_Status *status) { SP_MPI_TIMED(WAIT, PMPI_Wait(req, status)); }

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  SP_MPI_TIMED(WAITALL, PMPI_Waitall(count, reqs, statuses));
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status) {
  SP_MPI_TIMED(SENDRECV, PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
                                       rtag, comm, status));
}

int MPI_Barrier(MPI_Comm comm) { SP_MPI_TIMED(BARRIER, PMPI_Barrier(comm)); }

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  SP_MPI_TIMED(BCAST, PMPI_Bcast(buf, count, type, root, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  SP_MPI_TIMED(REDUCE, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  SP_MPI_TIMED(ALLREDUCE, PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm) {
  SP_MPI_TIMED(ALLGATHER, PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm) {
  SP_MPI_TIMED(ALLTOALL, PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}
