/* summary_columns.h - --summary --columns NAME: the named columns beyond the
 * percentiles, one row of SP_SUM_EXTRA_COLUMNS each (summary_columns.c).
 * They print before the region name, in this order. */
#ifndef SP_SUMMARY_COLUMNS_H
#define SP_SUMMARY_COLUMNS_H

#include "pproc.h"

/* One line per column: XX(id, name, kind, width, help). */
/* clang-format off */
#define SP_SUM_EXTRA_COLUMNS(XX) \
  XX(PEAK_RSS, "peak_rss_bytes", SP_COL_INT, 15, "highest RSS sampled during a call of the region (SCOPE_PROFILER_SAMPLE_MS)")
/* clang-format on */

enum {
#define SP__XX(id, name, kind, width, help) SP_SUM_EXTRA_##id,
  SP_SUM_EXTRA_COLUMNS(SP__XX)
#undef SP__XX
      SP_SUM_NEXTRA
};

/* Index of the column named name, or -1. */
int sp_sum_extra_find(const char *name);
/* Its header. */
sp_col_t sp_sum_extra_col(int id);

/* One row's figures of the extra columns. */
typedef struct sp_sum_extra {
  int64_t v[SP_SUM_NEXTRA];
  int have[SP_SUM_NEXTRA]; /* 0: "-" */
} sp_sum_extra_t;

/* Adds the calls of iv (region on the j-th selected rank; only those of
 * thread when thread >= 0) to the row's figures of the wanted columns
 * (bits of o->sum_extra). Returns 0 or SP_EXIT_IO. */
int sp_sum_extra_pair(const sp_selection_t *sel, unsigned wanted, int j,
                      const sp_reader_intervals_t *iv, int thread, sp_sum_extra_t *row);
/* Frees what the columns kept between pairs (the samples of each rank). */
void sp_sum_extra_end(void);

#endif
