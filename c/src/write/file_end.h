/* file_end.h - a written profile's end against HDF5's own end of allocation.
 *
 * HDF5 allocates room (the EOA, "end of allocation") beyond what it has
 * written: the raw data of our datasets is written after the file is
 * closed, and HDF5 1.10 allocates and writes metadata during H5Fclose
 * (object headers that grew, the dense link storage of a large group), so
 * an EOA asked for before the close is not the file's end. The superblock
 * stores the final one; a file shorter than it is refused by every reader
 * ("truncated file: eof = ..., stored_eof = ..."). */
#ifndef SP_FILE_END_H
#define SP_FILE_END_H

#include <stdint.h>

#include "sp_internal.h"

/* The end of allocation stored in the closed file at path, read by opening
 * it with HDF5 (read-only, POSIX driver). 0, or SP_EHDF5 when HDF5 cannot
 * open it. */
SP_HIDDEN int sp__file_end_stored(const char *path, uint64_t *eoa);

/* Before a profile is published: HDF5 opens the closed file at path and
 * the file is as long as its stored end of allocation. 0, else SP_EHDF5
 * with a message naming `what` (the file the user asked for). */
SP_HIDDEN int sp__file_end_check(const char *path, const char *what);

#endif
