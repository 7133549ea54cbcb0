/* summary_columns.h - --summary --columns NAME: the named columns beyond the
 * percentiles (summary_columns.c). The one table the parser, its messages
 * and the summary read. Columns placed SP_SUM_AFTER_PCTS print after the
 * percentiles, SP_SUM_BEFORE_REGION just before the region name; each in
 * the order given on the command line. */
#ifndef SP_SUMMARY_COLUMNS_H
#define SP_SUMMARY_COLUMNS_H

#include "pproc.h"

enum { SP_SUM_AFTER_PCTS, SP_SUM_BEFORE_REGION };

/* One line per column: XX(id, name, kind, width, place).
 * bytes: MPI calls' bytes sent and received, summed over ranks;
 * msgs: MPI calls with a peer >= 0 or bytes > 0;
 * source: the region's place in the source, file:line (text);
 * peak_rss_bytes: highest RSS sampled during a call of the region
 * (SCOPE_PROFILER_SAMPLE_MS);
 * wait_s: seconds the region's MPI calls spent in wait states (--waits),
 * summed over ranks;
 * io_bytes, io_s: bytes and time of the I/O calls the region made
 * (SCOPE_PROFILER_PROFILE_IO; common/io_attrib.c). */
/* clang-format off */
#define SP_SUM_NAMED_COLUMNS(XX) \
  XX(BYTES, "bytes", SP_COL_INT, 14, SP_SUM_AFTER_PCTS) \
  XX(MSGS, "msgs", SP_COL_INT, 14, SP_SUM_AFTER_PCTS) \
  XX(SOURCE, "source", SP_COL_STR, 24, SP_SUM_BEFORE_REGION) \
  XX(PEAK_RSS, "peak_rss_bytes", SP_COL_INT, 15, SP_SUM_BEFORE_REGION) \
  XX(WAIT, "wait_s", SP_COL_SEC, 12, SP_SUM_AFTER_PCTS) \
  XX(IO_BYTES, "io_bytes", SP_COL_INT, 14, SP_SUM_AFTER_PCTS) \
  XX(IO_S, "io_s", SP_COL_SEC, 14, SP_SUM_AFTER_PCTS)
/* clang-format on */

enum {
#define SP__XX(id, name, kind, width, place) SP_SUM_COL_##id,
  SP_SUM_NAMED_COLUMNS(SP__XX)
#undef SP__XX
      SP_SUM_NCOLS
};

/* Index of the column named name, or -1. */
int sp_sum_col_find(const char *name);
/* Its header. */
sp_col_t sp_sum_col(int id);
/* Where it prints: SP_SUM_AFTER_PCTS or SP_SUM_BEFORE_REGION. */
int sp_sum_col_place(int id);

/* One row's figures of the named columns (source has none: it is read
 * when printed). */
typedef struct sp_sum_extra {
  int64_t v[SP_SUM_NCOLS];
  int have[SP_SUM_NCOLS]; /* 0: "-" */
} sp_sum_extra_t;

/* Adds the calls of iv (region on the j-th selected rank; only those of
 * thread when thread >= 0) to the row's figures of the wanted sampled
 * columns (bits 1 << SP_SUM_COL_*; peak_rss_bytes). Returns 0 or
 * SP_EXIT_IO. */
int sp_sum_extra_pair(const sp_selection_t *sel, unsigned wanted, int j,
                      const sp_reader_intervals_t *iv, int thread, sp_sum_extra_t *row);
/* wait_s: each row's wait-state ns over the selected ranks (waits.h), "-"
 * for regions that are not MPI calls and for files whose MPI calls have no
 * tags and communicators. Returns 0 or an exit code (said). */
int sp_sum_extra_waits(const sp_selection_t *sel, const int *regions, const int *threads,
                       sp_sum_extra_t *const *rows, int nrows);
/* Frees what the columns kept between pairs (the samples of each rank). */
void sp_sum_extra_end(void);

#endif
