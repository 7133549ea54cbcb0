/* aggregate_file.h - profile mode's file, written by sp_finalize and
 * sp_report (aggregate_file.c). Never installed. */
#ifndef SP_AGGREGATE_FILE_H
#define SP_AGGREGATE_FILE_H

#include "aggregate.h"

struct sp_par;
/* Writes every rank's aggregates to path (collective over par), through a
 * temporary file renamed into place. */
SP_HIDDEN int sp__agg_write(struct sp_par *par, const char *path, const sp_out_id_t *was);
/* The aggregate file's path when time_trace also writes the trace file:
 * "<stem>.aggregate<ext>". */
SP_HIDDEN void sp__agg_path(const char *file_path, char *out, size_t cap);

#endif
