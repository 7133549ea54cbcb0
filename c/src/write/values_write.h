/* values_write.h - values per call into the file (values_write.c,
 * docs/values.md). Never installed. */
#ifndef SP_VALUES_WRITE_H
#define SP_VALUES_WRITE_H

#include "par.h"
#include "plan.h"

/* Finalize, collective over par: every rank's values into the per-rank
 * file at ranks_path and/or the columnar one at col_path (NULL: not that
 * one), written by rank 0. Nothing when no rank has values. */
/* Whether l may hold values per call (0: surely none): what finalize's
 * first exchange carries, so that the values' step is skipped by every
 * rank where no rank has any. */
SP_HIDDEN int sp__values_maybe(const sp_local_t *l);
SP_HIDDEN int sp__values_finalize(sp_par_t *par, const sp_local_t *l, const char *ranks_path,
                                  const char *col_path);
/* Recovery: the values of nranks ranks' spill files into the finished
 * file at path (columnar: its layout). */
SP_HIDDEN int sp__values_recover(const char *path, int columnar, const sp_local_t *ls, int nranks);

#endif
