/* raw_write.h - streaming the events of this rank into the file. */
#ifndef SP_RAW_WRITE_H
#define SP_RAW_WRITE_H

#include "layout.h"
#include "par.h"
#include "plan.h"

/* Writes l's events at offs (from sp__layout_create) into path. With MPI
 * every rank of par calls it (in the MPI-IO modes the file is opened and
 * closed collectively); without MPI (par->active 0) mode must be
 * SP_RAW_POSIX.
 * round_bytes bounds the memory used. */
SP_HIDDEN int sp__raw_write(sp_par_t *par, const char *path, const sp_local_t *l,
                            const sp_region_offsets_t *offs, sp_raw_mode_t mode,
                            int64_t round_bytes);
/* The same into memory: offs are places in mem (mem_len bytes) instead of
 * a file's; this rank alone (the columnar layout's columns, columnar_plan.c,
 * without a write call per block). SP_EIO for a place outside mem. */
SP_HIDDEN int sp__raw_write_mem(const sp_local_t *l, const sp_region_offsets_t *offs, char *mem,
                                int64_t mem_len, int64_t round_bytes);

#endif
