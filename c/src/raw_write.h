/* raw_write.h - streaming the events of this rank into the file. */
#ifndef SP_RAW_WRITE_H
#define SP_RAW_WRITE_H

#include "layout.h"
#include "par.h"
#include "plan.h"

/* Writes l's events at offs (from sp__layout_create) into path; with MPI
 * collective over par (every rank calls it). round_bytes bounds memory. */
SP_HIDDEN int sp__raw_write(sp_par_t *par, const char *path, const sp_local_t *l,
                            const sp_region_offsets_t *offs, int64_t round_bytes);

#endif
