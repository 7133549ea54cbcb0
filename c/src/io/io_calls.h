/* io_calls.h - the program's I/O calls as regions (profile_io, SCOPE_PROFILER_PROFILE_IO).
 *
 * The room c/src/io/ interposes POSIX and stdio calls (io_posix.c,
 * io_stdio.c) in the shared library: each forwards to the next definition
 * (dlsym RTLD_NEXT, io_real.c). Off, or inside the library's own I/O
 * (sp__io_own), a wrapper forwards straight away: one load and branch.
 * On, a call is the region "io:<name>" under the caller's open region with
 * its bytes and file id (mpi_extra.h), and it adds to the file's record
 * (io_files.c, io_format.h). The MPI-IO wrappers (mpi_profile_rma_io.c)
 * take file ids from here too. docs/io.md. */
#ifndef SP_IO_CALLS_H
#define SP_IO_CALLS_H

#include <stdint.h>

#include "io_format.h"
#include "io_files.h"
#include "sp_internal.h"

/* The recorded calls: id, region name, kind (io_format.h SP_IO_K_*), API
 * bit. 64-bit variants record under the plain name. */
/* clang-format off */
#define SP_IO_CALLS(XX)                                             \
  XX(OPEN, "io:open", META, 1) XX(OPENAT, "io:openat", META, 1)     \
  XX(CREAT, "io:creat", META, 1) XX(CLOSE, "io:close", META, 1)     \
  XX(READ, "io:read", READ, 1) XX(WRITE, "io:write", WRITE, 1)      \
  XX(PREAD, "io:pread", READ, 1) XX(PWRITE, "io:pwrite", WRITE, 1)  \
  XX(READV, "io:readv", READ, 1) XX(WRITEV, "io:writev", WRITE, 1)  \
  XX(PREADV, "io:preadv", READ, 1)                                  \
  XX(PWRITEV, "io:pwritev", WRITE, 1)                               \
  XX(LSEEK, "io:lseek", SEEK, 1) XX(FSYNC, "io:fsync", SYNC, 1)     \
  XX(FDATASYNC, "io:fdatasync", SYNC, 1)                            \
  XX(FTRUNCATE, "io:ftruncate", META, 1)                            \
  XX(FOPEN, "io:fopen", META, 2) XX(FCLOSE, "io:fclose", META, 2)   \
  XX(FREAD, "io:fread", READ, 2) XX(FWRITE, "io:fwrite", WRITE, 2)  \
  XX(FFLUSH, "io:fflush", META, 2)                                  \
  XX(FPRINTF, "io:fprintf", WRITE, 2)                               \
  XX(FPUTS, "io:fputs", WRITE, 2) XX(FSEEK, "io:fseek", SEEK, 2)
/* clang-format on */
typedef enum sp_io_call {
#define SP__XX(id, name, kind, api) SP_IO_##id,
  SP_IO_CALLS(SP__XX)
#undef SP__XX
      SP_IO_NCALLS
} sp_io_call_t;

/* 1 while a session with profile_io runs (io_calls.c): the wrappers' one test. */
extern SP_HIDDEN int sp__io_on;
/* Its value for the wrappers, read on any thread while a session starts or
 * stops (relaxed: a plain load on x86; TSan sees the sharing). */
static inline int sp__io_is_on(void) { return __atomic_load_n(&sp__io_on, __ATOMIC_RELAXED); }

/* One recorded call between sp__io_enter and sp__io_leave. */
typedef struct sp_io_rec {
  int h;    /* its region; -1 for an MPI-IO call (its wrapper's region) */
  int kind; /* SP_IO_K_* */
  int api;  /* SP_IO_API_* */
  int pad;
  int64_t slot;   /* its region's event slot, -1 none (then no values follow) */
  int64_t t0;     /* ticks at its start: its event's start stamp when it has one */
  const char *op; /* its region name */
} sp_io_rec_t;

/* Starts recording a call (errno kept); 0 when it is not recorded (no
 * session, or a region refused), then the wrapper just forwards. */
SP_HIDDEN int sp__io_enter(sp_io_rec_t *c, sp_io_call_t call);
/* The same for an MPI-IO call timed by its own region (mpi_profile): called
 * before that region starts; the caller sets c->t0. */
SP_HIDDEN void sp__io_enter_mpi(sp_io_rec_t *c, int kind, const char *op);
/* Ends it: its bytes (-1 error) to file row `row` (-1 unknown) at offset
 * off (-1 unknown); stops the region and notes bytes and row. */
SP_HIDDEN void sp__io_leave(sp_io_rec_t *c, int32_t row, int64_t bytes, int64_t off);
/* The same for an MPI-IO call whose region stopped at t1 (ticks; below
 * c->t0, e.g. -1: unknown, read now). */
SP_HIDDEN void sp__io_leave_at(sp_io_rec_t *c, int32_t row, int64_t bytes, int64_t off, int64_t t1);

/* A session starts (on: profile_io with recording on; the file table
 * emptied) or stops recording I/O calls (session.c). */
SP_HIDDEN void sp__io_session_start(int on);
SP_HIDDEN void sp__io_session_stop(void);

#endif
