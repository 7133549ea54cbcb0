/* columnar_extras.h - the per-rank layout's extras in the columnar file
 * (columnar_extras.c). */
#ifndef SP_COLUMNAR_EXTRAS_H
#define SP_COLUMNAR_EXTRAS_H

#include "columnar_plan.h"

/* The users' metadata, source locations and samples into the finished
 * columnar file at path (its name table in c), written by rank 0 from
 * what every rank sends. Collective: every rank takes part whatever rc,
 * its status so far; with rc != 0 it sends nothing, and rank 0 writes
 * nothing when its rc or another rank's was not 0. 0 or an SP_E code
 * (rc when it was not 0). */
SP_HIDDEN int sp__columnar_extras(sp_par_t *par, const char *path, const sp_local_t *l,
                                  const sp_col_local_t *c, int rc);

/* Recovery: the same from nranks ranks' plans and spill files, with the
 * recovered marks (/metadata@recovered_from_spill, rank_info/missing). */
SP_HIDDEN int sp__columnar_extras_serial(const char *path, const sp_local_t *ls, int nranks,
                                         const sp_col_local_t *c);

#endif
