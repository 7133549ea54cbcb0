/* mpi_profile_fortran.c - MPI calls from Fortran as regions (profile_mpi).
 *
 * Open MPI's Fortran entry points (mpi_allreduce_ etc. of `use mpi` and
 * mpif.h, mpi_allreduce_f08_ etc. of `use mpi_f08`) convert their
 * arguments and call PMPI_Allreduce, never MPI_Allreduce, so the C
 * wrappers do not see Fortran calls. These replace the entry points: each
 * times the call as the same region as C ("MPI_Allreduce") and forwards
 * its arguments untouched to the Fortran profiling entry point
 * (pmpi_allreduce_, pmpi_allreduce_f08_), which reaches PMPI_Allreduce
 * directly: a Fortran call is recorded once. Every Fortran MPI argument is
 * passed by reference, so a wrapper is its call's number of pointers.
 *
 * The pmpi_ entry points live in libmpi_mpifh / libmpi_usempif08, which
 * C programs do not load: they are looked up with dlsym on first use. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

#include "sp_internal.h"

/* The Fortran profiling entry point `name`, looked up once. */
static void *sp_f_lookup(void **cache, const char *name) {
  void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (SP_LIKELY(fn != NULL)) return fn;
  fn = dlsym(RTLD_DEFAULT, name);
  if (!fn) {
    /* No way to make the call: tell the user instead of failing silently. */
    fprintf(stderr, "scope-profiler: MPI Fortran profiling entry point %s not found\n", name);
    return NULL;
  }
  __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
  return fn;
}

#define SP_P(n) void *a##n
#define SP_PARAMS2 SP_P(1), SP_P(2)
#define SP_PARAMS3 SP_PARAMS2, SP_P(3)
#define SP_PARAMS4 SP_PARAMS3, SP_P(4)
#define SP_PARAMS6 SP_PARAMS4, SP_P(5), SP_P(6)
#define SP_PARAMS7 SP_PARAMS6, SP_P(7)
#define SP_PARAMS8 SP_PARAMS7, SP_P(8)
#define SP_PARAMS13 SP_PARAMS8, SP_P(9), SP_P(10), SP_P(11), SP_P(12), SP_P(13)
#define SP_ARGS2 a1, a2
#define SP_ARGS3 SP_ARGS2, a3
#define SP_ARGS4 SP_ARGS3, a4
#define SP_ARGS6 SP_ARGS4, a5, a6
#define SP_ARGS7 SP_ARGS6, a7
#define SP_ARGS8 SP_ARGS7, a8
#define SP_ARGS13 SP_ARGS8, a9, a10, a11, a12, a13

/* One wrapper: fn (exported) times the call `id` and forwards to pname.
 * The last argument of every Fortran MPI call is ierror (optional in
 * mpi_f08, then NULL). */
#define SP_F_WRAPPER(fn, pname, id, n)                                           \
  SP_EXPORT void fn(SP_PARAMS##n);                                               \
  void fn(SP_PARAMS##n) {                                                        \
    static void *real;                                                           \
    void (*p)(SP_PARAMS##n) = (void (*)(SP_PARAMS##n))sp_f_lookup(&real, pname); \
    if (!p) {                                                                    \
      void *ierr_[] = {SP_ARGS##n};                                              \
      if (ierr_[n - 1]) *(MPI_Fint *)ierr_[n - 1] = MPI_ERR_OTHER;               \
      return;                                                                    \
    }                                                                            \
    int h_ = sp__mpi_call_handle(SP_MPI_CALL_##id);                              \
    if (h_ >= 0) sp_start(h_);                                                   \
    p(SP_ARGS##n);                                                               \
    if (h_ >= 0) sp_stop(h_);                                                    \
  }

/* All spellings of a call: mpif.h/`use mpi` (four manglings) and mpi_f08. */
#define SP_F_CALL(lower, upper, id, n)                     \
  SP_F_WRAPPER(mpi_##lower##_, "pmpi_" #lower "_", id, n)  \
  SP_F_WRAPPER(mpi_##lower##__, "pmpi_" #lower "_", id, n) \
  SP_F_WRAPPER(mpi_##lower, "pmpi_" #lower "_", id, n)     \
  SP_F_WRAPPER(MPI_##upper, "pmpi_" #lower "_", id, n)     \
  SP_F_WRAPPER(mpi_##lower##_f08_, "pmpi_" #lower "_f08_", id, n)

SP_F_CALL(send, SEND, SEND, 7)
SP_F_CALL(recv, RECV, RECV, 8)
SP_F_CALL(isend, ISEND, ISEND, 8)
SP_F_CALL(irecv, IRECV, IRECV, 8)
SP_F_CALL(wait, WAIT, WAIT, 3)
SP_F_CALL(waitall, WAITALL, WAITALL, 4)
SP_F_CALL(sendrecv, SENDRECV, SENDRECV, 13)
SP_F_CALL(barrier, BARRIER, BARRIER, 2)
SP_F_CALL(bcast, BCAST, BCAST, 6)
SP_F_CALL(reduce, REDUCE, REDUCE, 8)
SP_F_CALL(allreduce, ALLREDUCE, ALLREDUCE, 7)
SP_F_CALL(allgather, ALLGATHER, ALLGATHER, 8)
SP_F_CALL(alltoall, ALLTOALL, ALLTOALL, 8)
