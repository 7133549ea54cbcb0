/* layout_mem.h - the layout built in memory, copied to disk by our own
 * writes (see layout_mem.c). */
#ifndef SP_LAYOUT_MEM_H
#define SP_LAYOUT_MEM_H

#include "sp_internal.h"

/* Points fd, HDF5's descriptor of a file it just created,
 * at an anonymous memory file holding what HDF5 wrote so far, and returns
 * a descriptor of that memory file; -1 when it cannot (HDF5 then writes
 * to the disk). After H5Fclose, sp__layout_mem_copy copies its written
 * extents to the same offsets of the file at path with our own writes:
 * 0, SP_EIO (said), SP_EPATH or SP_ENOMEM. */
SP_HIDDEN int sp__layout_mem_take(int fd);
SP_HIDDEN int sp__layout_mem_copy(int mem, const char *path);

#endif
