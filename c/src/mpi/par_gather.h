/* par_gather.h - a rank's blob to rank 0, with or without MPI. */
#ifndef SP_PAR_GATHER_H
#define SP_PAR_GATHER_H

#include "par.h"

/* As sp__par_gather_root when MPI is active; otherwise this rank's blob is
 * the whole (*all = blob, offs {0, len}). Takes blob: freed, or handed over
 * as *all. */
SP_HIDDEN int sp__par_gather_own(sp_par_t *p, char *blob, int64_t len, char **all,
                                 int64_t **offs);

#endif
