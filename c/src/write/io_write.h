/* io_write.h - profile_io's per-file records into the file (io_write.c).
 * Never installed. */
#ifndef SP_IO_WRITE_H
#define SP_IO_WRITE_H

#include <hdf5.h>

#include "io_format.h"
#include "sp_internal.h"

/* One rank's blob (io_format.h) as rank<rank>/io/files/... (the group
 * rank<rank> created when missing, as in profile mode's file); nothing for
 * an empty blob. */
SP_HIDDEN int sp__io_write_rank(hid_t file, int rank, const char *blob, int64_t len);
/* Every rank's blob (all + offs[r] .. offs[r + 1]) as the columnar file's
 * io_files/ table, one row per (rank, file); nothing when no rank has one. */
SP_HIDDEN int sp__io_write_columnar(hid_t file, int nranks, const char *all, const int64_t *offs);

#endif
