/* io_files.h - the rank's per-file records of profile_io (io_files.c). Never installed. */
#ifndef SP_IO_FILES_H
#define SP_IO_FILES_H

#include <stdint.h>

#include "io_format.h"
#include "sp_internal.h"

/* Every function keeps errno. */
/* The row of a path being opened, or -1 (table full: said once). */
SP_HIDDEN int32_t sp__io_file_row(const char *path, int api);
/* fd now names row (an open gave it): position pos (-1 unknown). */
SP_HIDDEN void sp__io_fd_set(int fd, int32_t row, int64_t pos);
/* The row of fd, -1 if none; with make, a row "<fd N>" for one never seen
 * opened (inherited, dup'ed, opened before the session). */
SP_HIDDEN int32_t sp__io_fd_row(int fd, int api, int make);
/* fd's position, -1 unknown; sp__io_fd_pos_set sets it (after a seek or an access). */
SP_HIDDEN int64_t sp__io_fd_pos(int fd);
SP_HIDDEN void sp__io_fd_pos_set(int fd, int64_t pos);
/* fd closed: forgets it. */
SP_HIDDEN void sp__io_fd_drop(int fd);
/* Adds one finished call to row's record (the table's lock held inside);
 * t0, t1 in ticks (sp__ticks), converted to ns by sp__io_files_pack. */
SP_HIDDEN void sp__io_file_add(int32_t row, int kind, int api, const char *op, int64_t bytes,
                               int64_t off, int64_t t0, int64_t t1);
/* One mmap of row's file: counted, not timed. */
SP_HIDDEN void sp__io_file_mmap(int32_t row);
/* An MPI_File handle (its bits) opened on path / closed / its row (read
 * without a lock) and whether its view is still the default one (offsets
 * in bytes). */
SP_HIDDEN void sp__io_mpi_file_set(uint64_t handle, int32_t row);
SP_HIDDEN int32_t sp__io_mpi_file_row(uint64_t handle, int *plain_view);
/* MPI_File_set_view on the handle: its offsets are no longer bytes. */
SP_HIDDEN void sp__io_mpi_file_view(uint64_t handle);
SP_HIDDEN void sp__io_mpi_file_drop(uint64_t handle);
/* The table as one blob (io_format.h), *len 0 when no file was recorded;
 * the caller frees *blob. */
SP_HIDDEN int sp__io_files_pack(char **blob, int64_t *len);
/* A new session: the table emptied. */
SP_HIDDEN void sp__io_files_reset(void);

#endif
