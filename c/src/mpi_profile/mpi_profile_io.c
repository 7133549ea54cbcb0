/* mpi_profile_io.c - MPI-IO calls as regions, with bytes and file ids.
 *
 * Recorded with profile_mpi or profile_io (then also into the file's
 * record, io_files.c, and nothing the MPI library does underneath is
 * recorded again: sp__io_own is held through the call). Bytes: a blocking
 * read or write stores what its status says (MPI_Get_count in bytes; a
 * status of the wrapper's own where the caller passed MPI_STATUS_IGNORE),
 * a nonblocking one what its arguments ask for (count x type size), -1 on
 * an error; open, close, set_view, set_size, sync, seek, get_size,
 * preallocate and delete 0. A split collective's begin stores the bytes
 * it asks for (count x type size; the record counts the operation there),
 * its end 0 (its time adds to the file's read or write time). The int32
 * value is the file's row of rank<N>/io/files (docs/io.md). Not wrapped:
 * set_atomicity and the shared pointer's seek and position: their own
 * POSIX calls are hidden all the same (SP_FILE_QUIET). */
#include <limits.h>
#include <string.h>

#include "mpi_profile_io.h"

int sp__mpi_io_begin(sp_mpi_io_t *x, sp_mpi_call_t call, int kind) {
  x->h = sp__mpi_call_handle(call);
  if (SP_LIKELY(x->h < 0)) return 0;
  x->io = sp__io_is_on() && !sp__io_own;
  if (x->io) sp__io_enter_mpi(&x->r, kind, sp__mpi_call_name(call));
  int64_t t0;
  x->slot = sp__mpi_begin_ev(x->h, &t0);
  if (x->io) x->r.t0 = t0 >= 0 ? t0 : sp__ticks(); /* the record: the region's own stamps */
  return 1;
}

void sp__mpi_io_end(sp_mpi_io_t *x, int32_t row, int64_t bytes, int64_t off) {
  sp_stop(x->h);
  int64_t t1 = -1;
  if (x->slot >= 0) {
    if (x->io) t1 = sp__mpi_ev_end(x->h, x->slot);
    sp__mpi_note(x->h, bytes, row);
  }
  if (x->io) sp__io_leave_at(&x->r, row, bytes, off, t1);
}

static uint64_t sp_key(MPI_File fh) {
  uint64_t k = 0;
  memcpy(&k, &fh, sizeof fh < sizeof k ? sizeof fh : sizeof k);
  return k;
}

void sp__mpi_io_view(MPI_File fh) {
  if (sp__io_is_on()) sp__io_mpi_file_view(sp_key(fh)); /* its offsets: no longer bytes */
}

int32_t sp__mpi_io_row(MPI_File fh) {
  return sp__io_is_on() && fh != MPI_FILE_NULL ? sp__io_mpi_file_row(sp_key(fh), NULL) : -1;
}

/* fh's row, and with `b` the byte offset of its explicit offset off (in
 * etypes of its view; no MPI call while the view is the default one), -1
 * unknown: one lookup of the handle for both. */
static int32_t sp_row_at(MPI_File fh, MPI_Offset off, int64_t *b) {
  if (!sp__io_is_on() || fh == MPI_FILE_NULL) return -1;
  int plain = 0;
  const int32_t row = sp__io_mpi_file_row(sp_key(fh), &plain);
  if (row < 0 || !b) return row;
  MPI_Offset o = -1;
  *b = plain                                                   ? (int64_t)off
       : PMPI_File_get_byte_offset(fh, off, &o) == MPI_SUCCESS ? (int64_t)o
                                                               : -1;
  return row;
}

void sp__mpi_io_end_at(sp_mpi_io_t *x, MPI_File fh, MPI_Offset off, int64_t bytes) {
  int64_t b = -1;
  const int32_t row = sp_row_at(fh, off, x->io ? &b : NULL);
  sp__mpi_io_end(x, row, bytes, b);
}

int32_t sp__mpi_io_opened(MPI_File fh, const char *filename) {
  if (!sp__io_is_on()) return -1;
  const int32_t row = sp__io_file_row(filename, SP_IO_API_MPIIO);
  sp__io_mpi_file_set(sp_key(fh), row);
  return row;
}

void sp__mpi_io_closed(MPI_File fh) {
  if (sp__io_is_on()) sp__io_mpi_file_drop(sp_key(fh));
}

/* The bytes a blocking call moved: its status's count in bytes, else the
 * arguments' count x type size; -1 on an error. */
static int64_t sp_got(int rc, const MPI_Status *st, int count, MPI_Datatype t) {
  if (rc != MPI_SUCCESS) return -1;
#if defined(OPEN_MPI) && OPEN_MPI
  /* What Open MPI's MPI_Get_count(st, MPI_BYTE) answers, without its call
   * (~7 ns a call): the status's byte count, MPI_UNDEFINED past INT_MAX. */
  if (st->_ucount <= (size_t)INT_MAX) return (int64_t)st->_ucount;
#else
  int n = 0;
  if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED && n >= 0) return n;
#endif
  return sp__mpi_tbytes(count, t);
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
  sp_mpi_io_t x;
  if (!sp__mpi_io_begin(&x, SP_MPI_CALL_FILE_OPEN, SP_IO_K_META))
    return PMPI_File_open(comm, filename, amode, info, fh);
  const int rc = PMPI_File_open(comm, filename, amode, info, fh);
  const int32_t row = rc == MPI_SUCCESS && x.io ? sp__mpi_io_opened(*fh, filename) : -1;
  sp__mpi_io_end(&x, row, rc == MPI_SUCCESS ? 0 : -1, -1);
  return rc;
}

int MPI_File_close(MPI_File *fh) {
  sp_mpi_io_t x;
  if (!sp__mpi_io_begin(&x, SP_MPI_CALL_FILE_CLOSE, SP_IO_K_META)) return PMPI_File_close(fh);
  const MPI_File was = *fh;
  const int32_t row = sp__mpi_io_row(was);
  const int rc = PMPI_File_close(fh);
  if (rc == MPI_SUCCESS) sp__mpi_io_closed(was);
  sp__mpi_io_end(&x, row, rc == MPI_SUCCESS ? 0 : -1, -1);
  return rc;
}

/* A call on fh without data: 0 bytes, -1 on an error. */
#define SP_FILE_META(ID, KIND, call)                                        \
  sp_mpi_io_t x;                                                            \
  if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND)) return call; \
  const int rc = call;                                                      \
  sp__mpi_io_end(&x, sp__mpi_io_row(fh), rc == MPI_SUCCESS ? 0 : -1, -1);   \
  return rc

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft,
                      const char *rep, MPI_Info info) {
  sp__mpi_io_view(fh);
  SP_FILE_META(FILE_SET_VIEW, META, PMPI_File_set_view(fh, disp, et, ft, rep, info));
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  SP_FILE_META(FILE_SET_SIZE, META, PMPI_File_set_size(fh, size));
}

int MPI_File_sync(MPI_File fh) { SP_FILE_META(FILE_SYNC, SYNC, PMPI_File_sync(fh)); }

int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
  SP_FILE_META(FILE_GET_SIZE, META, PMPI_File_get_size(fh, size));
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  SP_FILE_META(FILE_PREALLOCATE, META, PMPI_File_preallocate(fh, size));
}

/* A file deleted by name: the row of that name (made on success, as an open would). */
int MPI_File_delete(const char *filename, MPI_Info info) {
  sp_mpi_io_t x;
  if (!sp__mpi_io_begin(&x, SP_MPI_CALL_FILE_DELETE, SP_IO_K_META))
    return PMPI_File_delete(filename, info);
  const int rc = PMPI_File_delete(filename, info);
  const int32_t row = rc == MPI_SUCCESS && x.io ? sp__io_file_row(filename, SP_IO_API_MPIIO) : -1;
  sp__mpi_io_end(&x, row, rc == MPI_SUCCESS ? 0 : -1, -1);
  return rc;
}

int MPI_File_seek(MPI_File fh, MPI_Offset off, int whence) {
  SP_FILE_META(FILE_SEEK, SEEK, PMPI_File_seek(fh, off, whence));
}

/* A blocking read or write at the individual or shared pointer. */
#define SP_FILE_RW(ID, NAME, CONST, KIND)                                                   \
  int MPI_##NAME(MPI_File fh, CONST void *buf, int count, MPI_Datatype t, MPI_Status *st) { \
    sp_mpi_io_t x;                                                                          \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND))                            \
      return PMPI_##NAME(fh, buf, count, t, st);                                            \
    MPI_Status own;                                                                         \
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;                                    \
    const int rc = PMPI_##NAME(fh, buf, count, t, s);                                       \
    sp__mpi_io_end(&x, sp__mpi_io_row(fh), sp_got(rc, s, count, t), -1);                    \
    return rc;                                                                              \
  }
/* A blocking read or write at an explicit offset. */
#define SP_FILE_RW_AT(ID, NAME, CONST, KIND)                                              \
  int MPI_##NAME(MPI_File fh, MPI_Offset off, CONST void *buf, int count, MPI_Datatype t, \
                 MPI_Status *st) {                                                        \
    sp_mpi_io_t x;                                                                        \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND))                          \
      return PMPI_##NAME(fh, off, buf, count, t, st);                                     \
    MPI_Status own;                                                                       \
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;                                  \
    const int rc = PMPI_##NAME(fh, off, buf, count, t, s);                                \
    const int64_t got = sp_got(rc, s, count, t);                                          \
    sp__mpi_io_end_at(&x, fh, off, got);                                                  \
    return rc;                                                                            \
  }
/* Nonblocking: the bytes asked for. */
#define SP_FILE_I(ID, NAME, CONST, KIND)                                                           \
  int MPI_##NAME(MPI_File fh, CONST void *buf, int count, MPI_Datatype t, MPI_Request *req) {      \
    sp_mpi_io_t x;                                                                                 \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND))                                   \
      return PMPI_##NAME(fh, buf, count, t, req);                                                  \
    const int rc = PMPI_##NAME(fh, buf, count, t, req);                                            \
    sp__mpi_io_end(&x, sp__mpi_io_row(fh), rc == MPI_SUCCESS ? sp__mpi_tbytes(count, t) : -1, -1); \
    return rc;                                                                                     \
  }
#define SP_FILE_I_AT(ID, NAME, CONST, KIND)                                               \
  int MPI_##NAME(MPI_File fh, MPI_Offset off, CONST void *buf, int count, MPI_Datatype t, \
                 MPI_Request *req) {                                                      \
    sp_mpi_io_t x;                                                                        \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND))                          \
      return PMPI_##NAME(fh, off, buf, count, t, req);                                    \
    const int rc = PMPI_##NAME(fh, off, buf, count, t, req);                              \
    sp__mpi_io_end_at(&x, fh, off, rc == MPI_SUCCESS ? sp__mpi_tbytes(count, t) : -1);    \
    return rc;                                                                            \
  }
SP_FILE_RW(FILE_WRITE, File_write, const, WRITE)
SP_FILE_RW(FILE_READ, File_read, , READ)
SP_FILE_RW(FILE_WRITE_ALL, File_write_all, const, WRITE)
SP_FILE_RW(FILE_READ_ALL, File_read_all, , READ)
SP_FILE_RW(FILE_WRITE_SHARED, File_write_shared, const, WRITE)
SP_FILE_RW(FILE_READ_SHARED, File_read_shared, , READ)
SP_FILE_RW(FILE_WRITE_ORDERED, File_write_ordered, const, WRITE)
SP_FILE_RW(FILE_READ_ORDERED, File_read_ordered, , READ)
SP_FILE_RW_AT(FILE_WRITE_AT, File_write_at, const, WRITE)
SP_FILE_RW_AT(FILE_READ_AT, File_read_at, , READ)
SP_FILE_RW_AT(FILE_WRITE_AT_ALL, File_write_at_all, const, WRITE)
SP_FILE_RW_AT(FILE_READ_AT_ALL, File_read_at_all, , READ)
SP_FILE_I(FILE_IWRITE, File_iwrite, const, WRITE)
SP_FILE_I(FILE_IREAD, File_iread, , READ)
SP_FILE_I(FILE_IWRITE_ALL, File_iwrite_all, const, WRITE)
SP_FILE_I(FILE_IREAD_ALL, File_iread_all, , READ)
SP_FILE_I(FILE_IWRITE_SHARED, File_iwrite_shared, const, WRITE)
SP_FILE_I(FILE_IREAD_SHARED, File_iread_shared, , READ)
SP_FILE_I_AT(FILE_IWRITE_AT, File_iwrite_at, const, WRITE)
SP_FILE_I_AT(FILE_IREAD_AT, File_iread_at, , READ)
SP_FILE_I_AT(FILE_IWRITE_AT_ALL, File_iwrite_at_all, const, WRITE)
SP_FILE_I_AT(FILE_IREAD_AT_ALL, File_iread_at_all, , READ)

/* A split collective's begin: the bytes asked for (count x type size), as
 * the nonblocking forms; its end: 0 bytes, -1 on an error. */
#define SP_FILE_BEGIN(ID, NAME, CONST, KIND)                                                       \
  int MPI_##NAME(MPI_File fh, CONST void *buf, int count, MPI_Datatype t) {                        \
    sp_mpi_io_t x;                                                                                 \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND))                                   \
      return PMPI_##NAME(fh, buf, count, t);                                                       \
    const int rc = PMPI_##NAME(fh, buf, count, t);                                                 \
    sp__mpi_io_end(&x, sp__mpi_io_row(fh), rc == MPI_SUCCESS ? sp__mpi_tbytes(count, t) : -1, -1); \
    return rc;                                                                                     \
  }
#define SP_FILE_BEGIN_AT(ID, NAME, CONST, KIND)                                             \
  int MPI_##NAME(MPI_File fh, MPI_Offset off, CONST void *buf, int count, MPI_Datatype t) { \
    sp_mpi_io_t x;                                                                          \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND))                            \
      return PMPI_##NAME(fh, off, buf, count, t);                                           \
    const int rc = PMPI_##NAME(fh, off, buf, count, t);                                     \
    sp__mpi_io_end_at(&x, fh, off, rc == MPI_SUCCESS ? sp__mpi_tbytes(count, t) : -1);      \
    return rc;                                                                              \
  }
#define SP_FILE_END(ID, NAME, CONST, KIND)                                                        \
  int MPI_##NAME(MPI_File fh, CONST void *buf, MPI_Status *st) {                                  \
    sp_mpi_io_t x;                                                                                \
    if (!sp__mpi_io_begin(&x, SP_MPI_CALL_##ID, SP_IO_K_##KIND)) return PMPI_##NAME(fh, buf, st); \
    const int rc = PMPI_##NAME(fh, buf, st);                                                      \
    sp__mpi_io_end(&x, sp__mpi_io_row(fh), rc == MPI_SUCCESS ? 0 : -1, -1);                       \
    return rc;                                                                                    \
  }
SP_FILE_BEGIN(FILE_WRITE_ALL_BEGIN, File_write_all_begin, const, WRITE)
SP_FILE_BEGIN(FILE_READ_ALL_BEGIN, File_read_all_begin, , READ)
SP_FILE_BEGIN(FILE_WRITE_ORDERED_BEGIN, File_write_ordered_begin, const, WRITE)
SP_FILE_BEGIN(FILE_READ_ORDERED_BEGIN, File_read_ordered_begin, , READ)
SP_FILE_BEGIN_AT(FILE_WRITE_AT_ALL_BEGIN, File_write_at_all_begin, const, WRITE)
SP_FILE_BEGIN_AT(FILE_READ_AT_ALL_BEGIN, File_read_at_all_begin, , READ)
SP_FILE_END(FILE_WRITE_ALL_END, File_write_all_end, const, WRITE_END)
SP_FILE_END(FILE_READ_ALL_END, File_read_all_end, , READ_END)
SP_FILE_END(FILE_WRITE_AT_ALL_END, File_write_at_all_end, const, WRITE_END)
SP_FILE_END(FILE_READ_AT_ALL_END, File_read_at_all_end, , READ_END)
SP_FILE_END(FILE_WRITE_ORDERED_END, File_write_ordered_end, const, WRITE_END)
SP_FILE_END(FILE_READ_ORDERED_END, File_read_ordered_end, , READ_END)

/* MPI-IO calls that are not recorded, whose own POSIX calls are not the
 * program's either (with profile_io on, they hold sp__io_own). */
#define SP_FILE_QUIET(NAME, PARAMS, ARGS)                    \
  int MPI_##NAME PARAMS {                                    \
    if (SP_LIKELY(!sp__io_is_on())) return PMPI_##NAME ARGS; \
    sp__io_own++;                                            \
    const int rc = PMPI_##NAME ARGS;                         \
    sp__io_own--;                                            \
    return rc;                                               \
  }
SP_FILE_QUIET(File_set_atomicity, (MPI_File fh, int flag), (fh, flag))
SP_FILE_QUIET(File_seek_shared, (MPI_File fh, MPI_Offset off, int whence), (fh, off, whence))
SP_FILE_QUIET(File_get_position_shared, (MPI_File fh, MPI_Offset *off), (fh, off))
