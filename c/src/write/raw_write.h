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

#endif
