/* columnar_write.h - every rank's part of the columnar trace file
 * (columnar_plan.h) written together (columnar_write.c). */
#ifndef SP_COLUMNAR_WRITE_H
#define SP_COLUMNAR_WRITE_H

#include "columnar_plan.h"

/* Writes every rank's part into path (created) through parallel HDF5
 * with collective transfers. Collective. 0 or an SP_E code. flag: a
 * number of this rank's that its first exchange sums over the ranks into
 * *flag_total (the same on every rank; valid when 0 is returned). */
SP_HIDDEN int sp__columnar_write(sp_par_t *par, const char *path, const sp_local_t *l, int64_t flag,
                                 int64_t *flag_total);

/* Recovery, serial: the nranks ranks ls (plans and spill files; a rank
 * without a file has an empty plan) into a new columnar file at path, as
 * finalize would have written it, extras included. 0 or an SP_E code. */
SP_HIDDEN int sp__columnar_write_serial(const char *path, const sp_local_t *ls, int nranks);

/* Whether finalize writes the columnar layout: SCOPE_PROFILER_LAYOUT and
 * the number of ranks; the same answer on every rank. Rank 0 warns once
 * where the per-rank layout is forced at a size where it is slow. */
SP_HIDDEN int sp__columnar_chosen(const sp_par_t *par, int32_t nregions);

#endif
