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
 * Each call's bytes and peer follow the C rules: the arguments are read
 * through the Fortran handles (MPI_Type_f2c etc.; an mpi_f08 handle is
 * one integer too), the statuses through MPI_Status_f2c, with a status
 * of the wrapper's own where the caller passed MPI_STATUS_IGNORE
 * (mpi_profile_fortran_x.c).
 *
 * The pmpi_ entry points live in libmpi_mpifh / libmpi_usempif08, which
 * C programs do not load: they are looked up with dlsym on first use. A
 * Fortran program linked with the library before the MPI libraries, as
 * the docs say, may not load them either: the linker's --as-needed (the
 * default on Debian and Ubuntu) drops libmpi_usempif08 when every
 * mpi_*_f08_ symbol the program calls is one of ours. Then the library
 * beside libmpi is opened (sp_f_in_libs): a wrapper never drops its call
 * (issue 43 item 1). */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mpi_profile_fortran_x.h"
#include "mpi_profile_io.h"

/* The Fortran libraries that may hold the pmpi_ entry points, by the name
 * of the C library they belong to: Open MPI's (libmpi.so.40 beside
 * libmpi_mpifh.so.40 and libmpi_usempif08.so.40) and MPICH's libmpifort. */
static const char *const sp_f_libs[] = {"libmpi_usempif08", "libmpi_mpifh", "libmpifort"};
#define SP_F_NLIBS ((int)(sizeof sp_f_libs / sizeof sp_f_libs[0]))

/* The Fortran library `k`, from the directory and version suffix of the
 * libmpi that holds PMPI_Init ("/usr/lib/libmpi.so.40" ->
 * "/usr/lib/libmpi_usempif08.so.40"), already loaded (RTLD_NOLOAD) or
 * opened now, or by its bare name through the loader's search path. Its
 * symbols stay local: it only serves our lookups. NULL when absent. */
static void *sp_f_open(int k) {
  char path[4096];
  const char *name = sp_f_libs[k];
  Dl_info info;
  const char *suffix = "";
  size_t dir_len = 0;
  if (dladdr((void *)PMPI_Init, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    const char *so = strstr(base, ".so");
    if (so) suffix = so + 3; /* ".40" of libmpi.so.40 */
    dir_len = (size_t)(base - info.dli_fname);
    if (dir_len >= sizeof path / 2) dir_len = 0;
    memcpy(path, info.dli_fname, dir_len);
  }
  /* Beside libmpi; by the bare versioned name; by the bare name. */
  char bare[256];
  snprintf(path + dir_len, sizeof path - dir_len, "%s.so%s", name, suffix);
  const char *where[3] = {dir_len ? path : NULL, bare, NULL};
  snprintf(bare, sizeof bare, "%s.so%s", name, suffix);
  char plain[256];
  snprintf(plain, sizeof plain, "%s.so", name);
  where[2] = plain;
  const int mode[] = {RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD, RTLD_NOW | RTLD_LOCAL};
  for (int m = 0; m < 2; m++)
    for (int w = 0; w < 3; w++) {
      void *h = where[w] ? dlopen(where[w], mode[m]) : NULL;
      if (h) return h;
    }
  return NULL;
}

/* `name` in the Fortran libraries, opened once each. */
static void *sp_f_in_libs(const char *name) {
  static void *libs[SP_F_NLIBS];
  static int tried[SP_F_NLIBS];
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  void *fn = NULL;
  pthread_mutex_lock(&lock);
  for (int k = 0; k < SP_F_NLIBS && !fn; k++) {
    if (!tried[k]) {
      libs[k] = sp_f_open(k);
      tried[k] = 1;
    }
    if (libs[k]) fn = dlsym(libs[k], name);
  }
  pthread_mutex_unlock(&lock);
  return fn;
}

#define SP_F_MISSING ((void *)1) /* looked up, not found: said once */

/* The Fortran profiling entry point `name`, looked up once; NULL when
 * there is none. */
static void *sp_f_lookup(void **cache, const char *name) {
  void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (SP_LIKELY(fn != NULL)) return fn == SP_F_MISSING ? NULL : fn;
  fn = dlsym(RTLD_DEFAULT, name);
  if (!fn) fn = sp_f_in_libs(name);
  if (!fn) {
    /* No way to make the call: the program's results are wrong from here
     * on, which the user must hear (ierror, when given, is MPI_ERR_OTHER). */
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "MPI Fortran profiling entry point %s not found in the program nor in "
            "libmpi_usempif08, libmpi_mpifh or libmpifort beside libmpi: its MPI calls are "
            "NOT performed (link the MPI Fortran libraries with -Wl,--no-as-needed)",
            name);
    fn = SP_F_MISSING;
  }
  __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
  return fn == SP_F_MISSING ? NULL : fn;
}

#define SP_P(n) void *a##n
#define SP_PARAMS1 SP_P(1)
#define SP_ARGS1 a1
#define SP_ARR1 a_[0]
#define SP_PARAMS2 SP_P(1), SP_P(2)
#define SP_ARGS2 a1, a2
#define SP_ARR2 a_[0], a_[1]
#define SP_PARAMS3 SP_P(1), SP_P(2), SP_P(3)
#define SP_ARGS3 a1, a2, a3
#define SP_ARR3 a_[0], a_[1], a_[2]
#define SP_PARAMS4 SP_P(1), SP_P(2), SP_P(3), SP_P(4)
#define SP_ARGS4 a1, a2, a3, a4
#define SP_ARR4 a_[0], a_[1], a_[2], a_[3]
#define SP_PARAMS5 SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5)
#define SP_ARGS5 a1, a2, a3, a4, a5
#define SP_ARR5 a_[0], a_[1], a_[2], a_[3], a_[4]
#define SP_PARAMS6 SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6)
#define SP_ARGS6 a1, a2, a3, a4, a5, a6
#define SP_ARR6 a_[0], a_[1], a_[2], a_[3], a_[4], a_[5]
#define SP_PARAMS7 SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7)
#define SP_ARGS7 a1, a2, a3, a4, a5, a6, a7
#define SP_ARR7 a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6]
#define SP_PARAMS8 SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7), SP_P(8)
#define SP_ARGS8 a1, a2, a3, a4, a5, a6, a7, a8
#define SP_ARR8 a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6], a_[7]
#define SP_PARAMS9 SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7), SP_P(8), SP_P(9)
#define SP_ARGS9 a1, a2, a3, a4, a5, a6, a7, a8, a9
#define SP_ARR9 a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6], a_[7], a_[8]
#define SP_PARAMS10 \
  SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7), SP_P(8), SP_P(9), SP_P(10)
#define SP_ARGS10 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10
#define SP_ARR10 a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6], a_[7], a_[8], a_[9]
#define SP_PARAMS11                                                                          \
  SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7), SP_P(8), SP_P(9), SP_P(10), \
      SP_P(11)
#define SP_ARGS11 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11
#define SP_ARR11 a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6], a_[7], a_[8], a_[9], a_[10]
#define SP_PARAMS12                                                                          \
  SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7), SP_P(8), SP_P(9), SP_P(10), \
      SP_P(11), SP_P(12)
#define SP_ARGS12 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12
#define SP_ARR12 \
  a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6], a_[7], a_[8], a_[9], a_[10], a_[11]
#define SP_PARAMS13                                                                          \
  SP_P(1), SP_P(2), SP_P(3), SP_P(4), SP_P(5), SP_P(6), SP_P(7), SP_P(8), SP_P(9), SP_P(10), \
      SP_P(11), SP_P(12), SP_P(13)
#define SP_ARGS13 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13
#define SP_ARR13 \
  a_[0], a_[1], a_[2], a_[3], a_[4], a_[5], a_[6], a_[7], a_[8], a_[9], a_[10], a_[11], a_[12]

/* One wrapper: fn (exported) times the call `id`, forwards to pname and
 * stores the values kind computes (mpi_profile_fortran_x.c: before the
 * call it may put a status of its own into a_, after it reads them). The
 * last argument of every Fortran MPI call is ierror (optional in mpi_f08,
 * then NULL). */
#define SP_F_WRAPPER(fn, pname, id, n, kind)                                     \
  SP_EXPORT void fn(SP_PARAMS##n);                                               \
  void fn(SP_PARAMS##n) {                                                        \
    static void *real;                                                           \
    void (*p)(SP_PARAMS##n) = (void (*)(SP_PARAMS##n))sp_f_lookup(&real, pname); \
    void *a_[] = {SP_ARGS##n};                                                   \
    if (!p) {                                                                    \
      if (a_[n - 1]) *(MPI_Fint *)a_[n - 1] = MPI_ERR_OTHER;                     \
      return;                                                                    \
    }                                                                            \
    int h_ = sp__mpi_call_handle(SP_MPI_CALL_##id);                              \
    if (SP_LIKELY(h_ < 0)) {                                                     \
      p(SP_ARGS##n);                                                             \
      return;                                                                    \
    }                                                                            \
    sp_fx_t x_;                                                                  \
    sp__fx_before(SP_FX_##kind, a_, &x_);                                        \
    int on_ = sp__mpi_begin(h_);                                                 \
    p(SP_ARR##n);                                                                \
    sp_stop(h_);                                                                 \
    x_.code = SP_MPI_CALL_##id;                                                  \
    x_.h = h_;                                                                   \
    x_.call = on_ ? sp__mpi_x_count(h_) : -1;                                    \
    sp__fx_after(SP_FX_##kind, a_, &x_);                                         \
    if (on_) sp__mpi_note_tc(h_, x_.bytes, x_.peer, x_.tag, x_.comm);            \
  }

/* All spellings of a call: mpif.h/`use mpi` (four manglings) and mpi_f08. */
#define SP_F_CALL(lower, upper, id, n, kind)                     \
  SP_F_WRAPPER(mpi_##lower##_, "pmpi_" #lower "_", id, n, kind)  \
  SP_F_WRAPPER(mpi_##lower##__, "pmpi_" #lower "_", id, n, kind) \
  SP_F_WRAPPER(mpi_##lower, "pmpi_" #lower "_", id, n, kind)     \
  SP_F_WRAPPER(MPI_##upper, "pmpi_" #lower "_", id, n, kind)     \
  SP_F_WRAPPER(mpi_##lower##_f08_, "pmpi_" #lower "_f08_", id, n, kind)

/* Persistent requests (mpi_profile_p2p.c): the *_init calls and
 * MPI_Request_free are not timed, only remembered; MPI_Start and
 * MPI_Startall are regions. */
#define SP_F_INIT_WRAPPER(fn, pname, recv)                                   \
  SP_EXPORT void fn(SP_PARAMS8);                                             \
  void fn(SP_PARAMS8) {                                                      \
    static void *real;                                                       \
    void (*p)(SP_PARAMS8) = (void (*)(SP_PARAMS8))sp_f_lookup(&real, pname); \
    void *a_[] = {SP_ARGS8};                                                 \
    if (!p) {                                                                \
      if (a8) *(MPI_Fint *)a8 = MPI_ERR_OTHER;                               \
      return;                                                                \
    }                                                                        \
    p(SP_ARGS8);                                                             \
    sp__fx_persist(a_, recv);                                                \
  }
#define SP_F_INIT(lower, upper, recv)                          \
  SP_F_INIT_WRAPPER(mpi_##lower##_, "pmpi_" #lower "_", recv)  \
  SP_F_INIT_WRAPPER(mpi_##lower##__, "pmpi_" #lower "_", recv) \
  SP_F_INIT_WRAPPER(mpi_##lower, "pmpi_" #lower "_", recv)     \
  SP_F_INIT_WRAPPER(MPI_##upper, "pmpi_" #lower "_", recv)     \
  SP_F_INIT_WRAPPER(mpi_##lower##_f08_, "pmpi_" #lower "_f08_", recv)
SP_F_INIT(send_init, SEND_INIT, 0)
SP_F_INIT(bsend_init, BSEND_INIT, 0)
SP_F_INIT(ssend_init, SSEND_INIT, 0)
SP_F_INIT(rsend_init, RSEND_INIT, 0)
SP_F_INIT(recv_init, RECV_INIT, 1)

#define SP_F_FREE_WRAPPER(fn, pname)                                         \
  SP_EXPORT void fn(SP_PARAMS2);                                             \
  void fn(SP_PARAMS2) {                                                      \
    static void *real;                                                       \
    void (*p)(SP_PARAMS2) = (void (*)(SP_PARAMS2))sp_f_lookup(&real, pname); \
    if (!p) {                                                                \
      if (a2) *(MPI_Fint *)a2 = MPI_ERR_OTHER;                               \
      return;                                                                \
    }                                                                        \
    MPI_Request r_ = PMPI_Request_f2c(*(const MPI_Fint *)a1);                \
    p(SP_ARGS2);                                                             \
    if (!a2 || *(const MPI_Fint *)a2 == MPI_SUCCESS) sp__mpi_req_forget(r_); \
  }
SP_F_FREE_WRAPPER(mpi_request_free_, "pmpi_request_free_")
SP_F_FREE_WRAPPER(mpi_request_free__, "pmpi_request_free_")
SP_F_FREE_WRAPPER(mpi_request_free, "pmpi_request_free_")
SP_F_FREE_WRAPPER(MPI_REQUEST_FREE, "pmpi_request_free_")
SP_F_FREE_WRAPPER(mpi_request_free_f08_, "pmpi_request_free_f08_")

SP_F_CALL(start, START, START, 2, START)
SP_F_CALL(startall, STARTALL, STARTALL, 3, STARTALL)
SP_F_CALL(send, SEND, SEND, 7, SEND)
SP_F_CALL(bsend, BSEND, BSEND, 7, SEND)
SP_F_CALL(ssend, SSEND, SSEND, 7, SEND)
SP_F_CALL(rsend, RSEND, RSEND, 7, SEND)
SP_F_CALL(recv, RECV, RECV, 8, RECV)
SP_F_CALL(isend, ISEND, ISEND, 8, SEND)
SP_F_CALL(ibsend, IBSEND, IBSEND, 8, SEND)
SP_F_CALL(issend, ISSEND, ISSEND, 8, SEND)
SP_F_CALL(irsend, IRSEND, IRSEND, 8, SEND)
SP_F_CALL(irecv, IRECV, IRECV, 8, IRECV)
SP_F_CALL(sendrecv, SENDRECV, SENDRECV, 13, SENDRECV)
SP_F_CALL(sendrecv_replace, SENDRECV_REPLACE, SENDRECV_REPLACE, 10, SENDRECV_REPLACE)
SP_F_CALL(probe, PROBE, PROBE, 5, PROBE)
SP_F_CALL(iprobe, IPROBE, IPROBE, 6, IPROBE)
SP_F_CALL(wait, WAIT, WAIT, 3, WAIT)
SP_F_CALL(test, TEST, TEST, 4, TEST)
SP_F_CALL(waitall, WAITALL, WAITALL, 4, WAITALL)
SP_F_CALL(testall, TESTALL, TESTALL, 5, TESTALL)
SP_F_CALL(waitany, WAITANY, WAITANY, 5, WAITANY)
SP_F_CALL(testany, TESTANY, TESTANY, 6, TESTANY)
SP_F_CALL(waitsome, WAITSOME, WAITSOME, 6, WAITSOME)
SP_F_CALL(testsome, TESTSOME, TESTSOME, 6, WAITSOME)
SP_F_CALL(barrier, BARRIER, BARRIER, 2, NONE)
SP_F_CALL(ibarrier, IBARRIER, IBARRIER, 3, NONE)
SP_F_CALL(bcast, BCAST, BCAST, 6, BCAST)
SP_F_CALL(ibcast, IBCAST, IBCAST, 7, BCAST)
SP_F_CALL(reduce, REDUCE, REDUCE, 8, REDUCE)
SP_F_CALL(ireduce, IREDUCE, IREDUCE, 9, REDUCE)
SP_F_CALL(allreduce, ALLREDUCE, ALLREDUCE, 7, TWICE)
SP_F_CALL(iallreduce, IALLREDUCE, IALLREDUCE, 8, TWICE)
SP_F_CALL(scan, SCAN, SCAN, 7, TWICE)
SP_F_CALL(iscan, ISCAN, ISCAN, 8, TWICE)
SP_F_CALL(exscan, EXSCAN, EXSCAN, 7, TWICE)
SP_F_CALL(iexscan, IEXSCAN, IEXSCAN, 8, TWICE)
SP_F_CALL(gather, GATHER, GATHER, 9, GATHER)
SP_F_CALL(igather, IGATHER, IGATHER, 10, GATHER)
SP_F_CALL(gatherv, GATHERV, GATHERV, 10, GATHERV)
SP_F_CALL(igatherv, IGATHERV, IGATHERV, 11, GATHERV)
SP_F_CALL(scatter, SCATTER, SCATTER, 9, SCATTER)
SP_F_CALL(iscatter, ISCATTER, ISCATTER, 10, SCATTER)
SP_F_CALL(scatterv, SCATTERV, SCATTERV, 10, SCATTERV)
SP_F_CALL(iscatterv, ISCATTERV, ISCATTERV, 11, SCATTERV)
SP_F_CALL(allgather, ALLGATHER, ALLGATHER, 8, ALLGATHER)
SP_F_CALL(iallgather, IALLGATHER, IALLGATHER, 9, ALLGATHER)
SP_F_CALL(allgatherv, ALLGATHERV, ALLGATHERV, 9, ALLGATHERV)
SP_F_CALL(iallgatherv, IALLGATHERV, IALLGATHERV, 10, ALLGATHERV)
SP_F_CALL(alltoall, ALLTOALL, ALLTOALL, 8, ALLTOALL)
SP_F_CALL(ialltoall, IALLTOALL, IALLTOALL, 9, ALLTOALL)
SP_F_CALL(alltoallv, ALLTOALLV, ALLTOALLV, 10, ALLTOALLV)
SP_F_CALL(ialltoallv, IALLTOALLV, IALLTOALLV, 11, ALLTOALLV)
SP_F_CALL(reduce_scatter, REDUCE_SCATTER, REDUCE_SCATTER, 7, REDUCE_SCATTER)
SP_F_CALL(ireduce_scatter, IREDUCE_SCATTER, IREDUCE_SCATTER, 8, REDUCE_SCATTER)
SP_F_CALL(reduce_scatter_block, REDUCE_SCATTER_BLOCK, REDUCE_SCATTER_BLOCK, 7, RSBLOCK)
SP_F_CALL(ireduce_scatter_block, IREDUCE_SCATTER_BLOCK, IREDUCE_SCATTER_BLOCK, 8, RSBLOCK)
SP_F_CALL(put, PUT, PUT, 9, RMA)
SP_F_CALL(get, GET, GET, 9, RMA)
SP_F_CALL(accumulate, ACCUMULATE, ACCUMULATE, 10, RMA)
SP_F_CALL(win_fence, WIN_FENCE, WIN_FENCE, 3, NONE)
SP_F_CALL(win_lock, WIN_LOCK, WIN_LOCK, 5, WIN_LOCK)
SP_F_CALL(win_unlock, WIN_UNLOCK, WIN_UNLOCK, 3, WIN_UNLOCK)

/* MPI-IO (mpi_profile_io.c's rules; bytes: count x type size as asked):
 * arguments fh first, then [offset at], buf, count c, type t. */
static void sp_f_io_end(sp_mpi_io_t *x, void **a, int n, int c, int t, int at) {
  const int ok = !a[n - 1] || *(MPI_Fint *)a[n - 1] == MPI_SUCCESS;
  const MPI_File fh = PMPI_File_f2c(*(MPI_Fint *)a[0]);
  const int64_t bytes =
      !ok ? -1 : c >= 0 ? sp__mpi_tbytes(*(MPI_Fint *)a[c], PMPI_Type_f2c(*(MPI_Fint *)a[t])) : 0;
  if (at >= 0)
    sp__mpi_io_end_at(x, fh, *(MPI_Offset *)a[at], bytes);
  else
    sp__mpi_io_end(x, sp__mpi_io_row(fh), bytes, -1);
}

#define SP_F_IO_WRAPPER(fn, pname, id, n, kind, c, t, at)                        \
  SP_EXPORT void fn(SP_PARAMS##n);                                               \
  void fn(SP_PARAMS##n) {                                                        \
    static void *real;                                                           \
    void (*p)(SP_PARAMS##n) = (void (*)(SP_PARAMS##n))sp_f_lookup(&real, pname); \
    void *a_[] = {SP_ARGS##n};                                                   \
    if (!p) {                                                                    \
      if (a_[n - 1]) *(MPI_Fint *)a_[n - 1] = MPI_ERR_OTHER;                     \
      return;                                                                    \
    }                                                                            \
    sp_mpi_io_t x_;                                                              \
    if (SP_LIKELY(!sp__mpi_io_begin(&x_, SP_MPI_CALL_##id, SP_IO_K_##kind))) {   \
      p(SP_ARGS##n);                                                             \
      return;                                                                    \
    }                                                                            \
    p(SP_ARGS##n);                                                               \
    sp_f_io_end(&x_, a_, n, c, t, at);                                           \
  }
#define SP_F_IO_CALL(lower, upper, n, kind, c, t, at)                                   \
  SP_F_IO_WRAPPER(mpi_##lower##_, "pmpi_" #lower "_", upper, n, kind, c, t, at)         \
  SP_F_IO_WRAPPER(mpi_##lower##__, "pmpi_" #lower "_", upper, n, kind, c, t, at)        \
  SP_F_IO_WRAPPER(mpi_##lower, "pmpi_" #lower "_", upper, n, kind, c, t, at)            \
  SP_F_IO_WRAPPER(MPI_##upper, "pmpi_" #lower "_", upper, n, kind, c, t, at)            \
  SP_F_IO_WRAPPER(mpi_##lower##_f08_, "pmpi_" #lower "_f08_", upper, n, kind, c, t, at)
SP_F_IO_CALL(file_write, FILE_WRITE, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_read, FILE_READ, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_write_all, FILE_WRITE_ALL, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_read_all, FILE_READ_ALL, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_write_at, FILE_WRITE_AT, 7, WRITE, 3, 4, 1)
SP_F_IO_CALL(file_read_at, FILE_READ_AT, 7, READ, 3, 4, 1)
SP_F_IO_CALL(file_write_at_all, FILE_WRITE_AT_ALL, 7, WRITE, 3, 4, 1)
SP_F_IO_CALL(file_read_at_all, FILE_READ_AT_ALL, 7, READ, 3, 4, 1)
SP_F_IO_CALL(file_write_shared, FILE_WRITE_SHARED, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_read_shared, FILE_READ_SHARED, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_write_ordered, FILE_WRITE_ORDERED, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_read_ordered, FILE_READ_ORDERED, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_iwrite, FILE_IWRITE, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_iread, FILE_IREAD, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_iwrite_at, FILE_IWRITE_AT, 7, WRITE, 3, 4, 1)
SP_F_IO_CALL(file_iread_at, FILE_IREAD_AT, 7, READ, 3, 4, 1)
SP_F_IO_CALL(file_iwrite_all, FILE_IWRITE_ALL, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_iread_all, FILE_IREAD_ALL, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_iwrite_at_all, FILE_IWRITE_AT_ALL, 7, WRITE, 3, 4, 1)
SP_F_IO_CALL(file_iread_at_all, FILE_IREAD_AT_ALL, 7, READ, 3, 4, 1)
SP_F_IO_CALL(file_iwrite_shared, FILE_IWRITE_SHARED, 6, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_iread_shared, FILE_IREAD_SHARED, 6, READ, 2, 3, -1)
SP_F_IO_CALL(file_sync, FILE_SYNC, 2, SYNC, -1, -1, -1)
SP_F_IO_CALL(file_set_size, FILE_SET_SIZE, 3, META, -1, -1, -1)
SP_F_IO_CALL(file_seek, FILE_SEEK, 4, SEEK, -1, -1, -1)
SP_F_IO_CALL(file_get_size, FILE_GET_SIZE, 3, META, -1, -1, -1)
SP_F_IO_CALL(file_preallocate, FILE_PREALLOCATE, 3, META, -1, -1, -1)
/* Split collectives: the begin the bytes asked for, the end 0. */
SP_F_IO_CALL(file_write_all_begin, FILE_WRITE_ALL_BEGIN, 5, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_read_all_begin, FILE_READ_ALL_BEGIN, 5, READ, 2, 3, -1)
SP_F_IO_CALL(file_write_ordered_begin, FILE_WRITE_ORDERED_BEGIN, 5, WRITE, 2, 3, -1)
SP_F_IO_CALL(file_read_ordered_begin, FILE_READ_ORDERED_BEGIN, 5, READ, 2, 3, -1)
SP_F_IO_CALL(file_write_at_all_begin, FILE_WRITE_AT_ALL_BEGIN, 6, WRITE, 3, 4, 1)
SP_F_IO_CALL(file_read_at_all_begin, FILE_READ_AT_ALL_BEGIN, 6, READ, 3, 4, 1)
SP_F_IO_CALL(file_write_all_end, FILE_WRITE_ALL_END, 4, WRITE_END, -1, -1, -1)
SP_F_IO_CALL(file_read_all_end, FILE_READ_ALL_END, 4, READ_END, -1, -1, -1)
SP_F_IO_CALL(file_write_ordered_end, FILE_WRITE_ORDERED_END, 4, WRITE_END, -1, -1, -1)
SP_F_IO_CALL(file_read_ordered_end, FILE_READ_ORDERED_END, 4, READ_END, -1, -1, -1)
SP_F_IO_CALL(file_write_at_all_end, FILE_WRITE_AT_ALL_END, 4, WRITE_END, -1, -1, -1)
SP_F_IO_CALL(file_read_at_all_end, FILE_READ_AT_ALL_END, 4, READ_END, -1, -1, -1)

/* MPI_File_close: the handle's row before the call, forgotten after. */
#define SP_F_CLOSE_WRAPPER(fn, pname)                                                \
  SP_EXPORT void fn(SP_PARAMS2);                                                     \
  void fn(SP_PARAMS2) {                                                              \
    static void *real;                                                               \
    void (*p)(SP_PARAMS2) = (void (*)(SP_PARAMS2))sp_f_lookup(&real, pname);         \
    if (!p) {                                                                        \
      if (a2) *(MPI_Fint *)a2 = MPI_ERR_OTHER;                                       \
      return;                                                                        \
    }                                                                                \
    sp_mpi_io_t x_;                                                                  \
    if (SP_LIKELY(!sp__mpi_io_begin(&x_, SP_MPI_CALL_FILE_CLOSE, SP_IO_K_META))) {   \
      p(a1, a2);                                                                     \
      return;                                                                        \
    }                                                                                \
    const MPI_File was = PMPI_File_f2c(*(MPI_Fint *)a1);                             \
    const int32_t row = sp__mpi_io_row(was);                                         \
    p(a1, a2);                                                                       \
    const int ok = !a2 || *(MPI_Fint *)a2 == MPI_SUCCESS;                            \
    if (ok) sp__mpi_io_closed(was);                                                  \
    sp__mpi_io_end(&x_, row, ok ? 0 : -1, -1);                                       \
  }
/* A call with one Fortran string argument, whose hidden length len follows
 * its n arguments (ierror the n-th, optional in mpi_f08): region id of
 * kind; `before` runs ahead of the call, `finish` after a recorded one. */
#define SP_F_STR_WRAPPER(fn, pname, n, id, kind, before, finish)                               \
  SP_EXPORT void fn(SP_PARAMS##n, size_t len);                                                 \
  void fn(SP_PARAMS##n, size_t len) {                                                          \
    static void *real;                                                                         \
    void (*p)(SP_PARAMS##n, size_t) = (void (*)(SP_PARAMS##n, size_t))sp_f_lookup(&real, pname); \
    if (!p) {                                                                                  \
      if (a##n) *(MPI_Fint *)a##n = MPI_ERR_OTHER;                                             \
      return;                                                                                  \
    }                                                                                          \
    before;                                                                                    \
    sp_mpi_io_t x_;                                                                            \
    if (SP_LIKELY(!sp__mpi_io_begin(&x_, SP_MPI_CALL_##id, SP_IO_K_##kind))) {                 \
      p(SP_ARGS##n, len);                                                                      \
      return;                                                                                  \
    }                                                                                          \
    p(SP_ARGS##n, len);                                                                        \
    finish;                                                                                    \
  }
/* MPI_File_open(comm, filename, amode, info, fh, ierror). */
#define SP_F_OPEN_WRAPPER(fn, pname) \
  SP_F_STR_WRAPPER(fn, pname, 6, FILE_OPEN, META, (void)0, sp_f_opened(&x_, a2, len, a5, a6))
/* MPI_File_delete(filename, info, ierror). */
#define SP_F_DELETE_WRAPPER(fn, pname) \
  SP_F_STR_WRAPPER(fn, pname, 3, FILE_DELETE, META, (void)0, sp_f_deleted(&x_, a1, len, a3))
/* MPI_File_set_view(fh, disp, etype, filetype, datarep, info, ierror): as in
 * C, fh's explicit offsets are in etypes of the new view from then on
 * (mpi_profile_io.c). */
#define SP_F_VIEW_WRAPPER(fn, pname)                                                    \
  SP_F_STR_WRAPPER(fn, pname, 7, FILE_SET_VIEW, META,                                   \
                   sp__mpi_io_view(PMPI_File_f2c(*(MPI_Fint *)a1)), sp_f_meta_end(&x_, a1, a7))

/* A Fortran string (blank-padded, len long) as a C one in path[4096]. */
static void sp_f_path(char *path, const char *name, size_t len) {
  while (len > 0 && name[len - 1] == ' ') len--;
  if (len >= 4096) len = 4095;
  memcpy(path, name, len);
  path[len] = '\0';
}

static void sp_f_opened(sp_mpi_io_t *x, const char *name, size_t len, void *fh, void *ierr) {
  const int ok = !ierr || *(MPI_Fint *)ierr == MPI_SUCCESS;
  int32_t row = -1;
  if (ok && x->io) {
    char path[4096];
    sp_f_path(path, name, len);
    row = sp__mpi_io_opened(PMPI_File_f2c(*(MPI_Fint *)fh), path);
  }
  sp__mpi_io_end(x, row, ok ? 0 : -1, -1);
}

static void sp_f_deleted(sp_mpi_io_t *x, const char *name, size_t len, void *ierr) {
  const int ok = !ierr || *(MPI_Fint *)ierr == MPI_SUCCESS;
  int32_t row = -1;
  if (ok && x->io) {
    char path[4096];
    sp_f_path(path, name, len);
    row = sp__io_file_row(path, SP_IO_API_MPIIO);
  }
  sp__mpi_io_end(x, row, ok ? 0 : -1, -1);
}
/* A call on the file of Fortran handle fh without data: 0 bytes, -1 on an error. */
static void sp_f_meta_end(sp_mpi_io_t *x, void *fh, void *ierr) {
  const int ok = !ierr || *(MPI_Fint *)ierr == MPI_SUCCESS;
  sp__mpi_io_end(x, sp__mpi_io_row(PMPI_File_f2c(*(MPI_Fint *)fh)), ok ? 0 : -1, -1);
}
#define SP_F_FILE_CALL(W, lower, upper)          \
  W(mpi_##lower##_, "pmpi_" #lower "_")          \
  W(mpi_##lower##__, "pmpi_" #lower "_")         \
  W(mpi_##lower, "pmpi_" #lower "_")             \
  W(MPI_##upper, "pmpi_" #lower "_")             \
  W(mpi_##lower##_f08_, "pmpi_" #lower "_f08_")
SP_F_FILE_CALL(SP_F_CLOSE_WRAPPER, file_close, FILE_CLOSE)
SP_F_FILE_CALL(SP_F_OPEN_WRAPPER, file_open, FILE_OPEN)
SP_F_FILE_CALL(SP_F_DELETE_WRAPPER, file_delete, FILE_DELETE)
SP_F_FILE_CALL(SP_F_VIEW_WRAPPER, file_set_view, FILE_SET_VIEW)

/* Calls that make a communicator (mpi_comm_create.c): the Fortran entry
 * points reach PMPI_ directly, so the new communicator's id is agreed
 * here, from its Fortran handle (argument `out`; an mpi_f08 handle is one
 * integer too). Not timed. ierror is optional in mpi_f08 (NULL). */
#define SP_F_MADE_WRAPPER(fn, pname, n, out)                                     \
  SP_EXPORT void fn(SP_PARAMS##n);                                               \
  void fn(SP_PARAMS##n) {                                                        \
    static void *real;                                                           \
    void (*p)(SP_PARAMS##n) = (void (*)(SP_PARAMS##n))sp_f_lookup(&real, pname); \
    void *a_[] = {SP_ARGS##n};                                                   \
    if (!p) {                                                                    \
      if (a_[n - 1]) *(MPI_Fint *)a_[n - 1] = MPI_ERR_OTHER;                     \
      return;                                                                    \
    }                                                                            \
    p(SP_ARGS##n);                                                               \
    if (!a_[n - 1] || *(const MPI_Fint *)a_[n - 1] == MPI_SUCCESS)               \
      sp__mpi_comm_created(PMPI_Comm_f2c(*(const MPI_Fint *)a_[out]));           \
  }
#define SP_F_MADE(lower, upper, n, out)                          \
  SP_F_MADE_WRAPPER(mpi_##lower##_, "pmpi_" #lower "_", n, out)  \
  SP_F_MADE_WRAPPER(mpi_##lower##__, "pmpi_" #lower "_", n, out) \
  SP_F_MADE_WRAPPER(mpi_##lower, "pmpi_" #lower "_", n, out)     \
  SP_F_MADE_WRAPPER(MPI_##upper, "pmpi_" #lower "_", n, out)     \
  SP_F_MADE_WRAPPER(mpi_##lower##_f08_, "pmpi_" #lower "_f08_", n, out)
SP_F_MADE(comm_dup, COMM_DUP, 3, 1)
SP_F_MADE(comm_dup_with_info, COMM_DUP_WITH_INFO, 4, 2)
SP_F_MADE(comm_split, COMM_SPLIT, 5, 3)
SP_F_MADE(comm_split_type, COMM_SPLIT_TYPE, 6, 4)
SP_F_MADE(comm_create, COMM_CREATE, 4, 2)
SP_F_MADE(comm_create_group, COMM_CREATE_GROUP, 5, 3)
SP_F_MADE(cart_create, CART_CREATE, 7, 5)
SP_F_MADE(cart_sub, CART_SUB, 4, 2)
SP_F_MADE(graph_create, GRAPH_CREATE, 7, 5)
SP_F_MADE(dist_graph_create, DIST_GRAPH_CREATE, 10, 8)
SP_F_MADE(dist_graph_create_adjacent, DIST_GRAPH_CREATE_ADJACENT, 11, 9)
SP_F_MADE(intercomm_create, INTERCOMM_CREATE, 7, 5)
SP_F_MADE(intercomm_merge, INTERCOMM_MERGE, 4, 2)

/* MPI_Comm_idup (comm, newcomm, request, ierror): the agreement starts
 * after it; MPI_Comm_free and MPI_Comm_disconnect (comm, ierror): the
 * handle is forgotten before MPI may give it out again. */
#define SP_F_IDUP_WRAPPER(fn, pname)                                         \
  SP_EXPORT void fn(SP_PARAMS4);                                             \
  void fn(SP_PARAMS4) {                                                      \
    static void *real;                                                       \
    void (*p)(SP_PARAMS4) = (void (*)(SP_PARAMS4))sp_f_lookup(&real, pname); \
    if (!p) {                                                                \
      if (a4) *(MPI_Fint *)a4 = MPI_ERR_OTHER;                               \
      return;                                                                \
    }                                                                        \
    p(SP_ARGS4);                                                             \
    if (!a4 || *(const MPI_Fint *)a4 == MPI_SUCCESS)                         \
      sp__mpi_comm_idup_started(PMPI_Comm_f2c(*(const MPI_Fint *)a1),        \
                                PMPI_Comm_f2c(*(const MPI_Fint *)a2));       \
  }
#define SP_F_FORGET_WRAPPER(fn, pname)                                       \
  SP_EXPORT void fn(SP_PARAMS2);                                             \
  void fn(SP_PARAMS2) {                                                      \
    static void *real;                                                       \
    void (*p)(SP_PARAMS2) = (void (*)(SP_PARAMS2))sp_f_lookup(&real, pname); \
    if (!p) {                                                                \
      if (a2) *(MPI_Fint *)a2 = MPI_ERR_OTHER;                               \
      return;                                                                \
    }                                                                        \
    sp__mpi_comm_forget(PMPI_Comm_f2c(*(const MPI_Fint *)a1));               \
    p(SP_ARGS2);                                                             \
  }
#define SP_F_SPELLINGS(W, lower)         \
  W(mpi_##lower##_, "pmpi_" #lower "_")  \
  W(mpi_##lower##__, "pmpi_" #lower "_") \
  W(mpi_##lower, "pmpi_" #lower "_")     \
  W(mpi_##lower##_f08_, "pmpi_" #lower "_f08_")
SP_F_SPELLINGS(SP_F_IDUP_WRAPPER, comm_idup)
SP_F_IDUP_WRAPPER(MPI_COMM_IDUP, "pmpi_comm_idup_")
SP_F_SPELLINGS(SP_F_FORGET_WRAPPER, comm_free)
SP_F_FORGET_WRAPPER(MPI_COMM_FREE, "pmpi_comm_free_")
SP_F_SPELLINGS(SP_F_FORGET_WRAPPER, comm_disconnect)
SP_F_FORGET_WRAPPER(MPI_COMM_DISCONNECT, "pmpi_comm_disconnect_")
