/* columnar_extras.h - the per-rank layout's extras in the columnar file
 * (columnar_extras.c). */
#ifndef SP_COLUMNAR_EXTRAS_H
#define SP_COLUMNAR_EXTRAS_H

#include "columnar_plan.h"

/* This rank's users' metadata, regions with a source, samples and MPI
 * request completions in one blob (*len bytes, malloc'd), sent to rank 0
 * in the columnar step's first exchange (columnar_plan.h). 0 or an SP_E
 * code (lost samples or completions are said and left out, not a
 * failure). */
SP_HIDDEN int sp__columnar_extras_pack(const sp_local_t *l, char **blob, int64_t *len);
/* Rank 0: every rank's blob from sp__columnar_extras_pack (rank r's at
 * all[at[r] .. at[r + 1]); an empty one: that rank failed, and nothing is
 * written) into the finished columnar file at path (its name table in
 * c). 0 or an SP_E code. */
SP_HIDDEN int sp__columnar_extras_write(const char *path, int nranks, const char *all,
                                        const int64_t *at, const sp_col_local_t *c);
/* Recovery: the same from nranks ranks' plans and spill files, with the
 * recovered marks (/metadata@recovered_from_spill, rank_info/missing). */
SP_HIDDEN int sp__columnar_extras_serial(const char *path, const sp_local_t *ls, int nranks,
                                         const sp_col_local_t *c);

#endif
