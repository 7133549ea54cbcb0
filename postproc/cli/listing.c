/* listing.c - the listings: --list, the lanes of the chart as text, in
 * drawing order; --io, the files the run read and wrote (io_files.c). */
#include <stdio.h>
#include <string.h>

#include "pproc.h"

int sp_list_print(const sp_selection_t *sel, sp_table_format_t fmt) {
  /* Ranks on several hosts: the rank column says "N@HOST" (a string). */
  const int hosts = sp_reader_num_hosts(sel->reader) > 1;
  const sp_col_t cols[] = {{"lane", SP_COL_INT, 0},
                           {"rank", hosts ? SP_COL_STR : SP_COL_INT, 0},
                           {"intervals", SP_COL_INT, 0},
                           {"region", SP_COL_STR, 0}};
  sp_table_t tb;
  sp_table_begin(&tb, fmt, cols, 4, NULL);
  for (int i = 0; i < sel->nlanes; i++) {
    sp_reader_info_t info;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    int rank = sp_reader_rank_id(sel->reader, sel->lanes[i].rank);
    const char *host = sp_rank_host_shown(sel, sel->lanes[i].rank);
    char named[96];
    snprintf(named, sizeof named, "%d@%s", rank, host ? host : "?");
    sp_cell_t c[4] = {{0, i, 0, NULL},
                      {0, rank, 0, hosts ? named : NULL},
                      {0, info.num_intervals, 0, NULL},
                      {0, 0, 0, sp_reader_region_name(sel->reader, sel->lanes[i].region)}};
    sp_table_row(&tb, c);
  }
  sp_table_end(&tb);
  return SP_EXIT_OK;
}

static const sp_col_t sp_io_cols[] = {
    {"rank", SP_COL_INT, 6},          {"opens", SP_COL_INT, 8},
    {"reads", SP_COL_INT, 8},         {"writes", SP_COL_INT, 8},
    {"bytes_read", SP_COL_INT, 14},   {"bytes_written", SP_COL_INT, 14},
    {"read_s", SP_COL_SEC, 14},       {"write_s", SP_COL_SEC, 14},
    {"meta_s", SP_COL_SEC, 14},       {"bandwidth_Bps", SP_COL_INT, 14},
    {"slowest_rank", SP_COL_INT, 12}, {"slowest_s", SP_COL_SEC, 14},
    {"ranks", SP_COL_INT, 6},         {"file", SP_COL_STR, 0}};
enum { SP_IO_NCOLS = sizeof sp_io_cols / sizeof sp_io_cols[0] };

typedef struct sp_io_out {
  sp_table_t tb;
  const sp_selection_t *sel;
  sp_table_format_t fmt;
  const char *note;
} sp_io_out_t;

/* One row: rank < 0 for a file over the ranks (slowest rank and time, ranks). */
static void sp_io_row(sp_table_t *tb, int rank, const int64_t *v, const char *name, int slow_rank,
                      int64_t slow_ns, int ranks) {
  sp_cell_t c[SP_IO_NCOLS];
  memset(c, 0, sizeof c);
  int k = 0;
  c[k++] = (sp_cell_t){rank < 0, rank, 0, NULL};
  c[k++].i = v[SP_READER_IO_OPENS];
  c[k++].i = v[SP_READER_IO_READS];
  c[k++].i = v[SP_READER_IO_WRITES];
  c[k++].i = v[SP_READER_IO_BYTES_READ];
  c[k++].i = v[SP_READER_IO_BYTES_WRITTEN];
  c[k++].d = 1e-9 * (double)v[SP_READER_IO_READ_NS];
  c[k++].d = 1e-9 * (double)v[SP_READER_IO_WRITE_NS];
  c[k++].d = 1e-9 * (double)v[SP_READER_IO_META_NS];
  double s = 1e-9 * ((double)v[SP_READER_IO_READ_NS] + (double)v[SP_READER_IO_WRITE_NS]);
  double b = (double)v[SP_READER_IO_BYTES_READ] + (double)v[SP_READER_IO_BYTES_WRITTEN];
  c[k++] = (sp_cell_t){s <= 0, s > 0 ? (int64_t)(b / s + 0.5) : 0, 0, NULL};
  c[k++] = (sp_cell_t){rank >= 0, slow_rank, 0, NULL};
  c[k++] = (sp_cell_t){rank >= 0, 0, 1e-9 * (double)slow_ns, NULL};
  c[k++] = (sp_cell_t){rank >= 0, ranks, 0, NULL};
  c[k].s = name;
  sp_table_row(tb, c);
}

static void sp_io_begin(void *ctx) {
  sp_io_out_t *out = ctx;
  if (out->fmt == SP_TABLE_TEXT) sp_run_meta_note(out->sel->reader, stdout);
  sp_table_begin(&out->tb, out->fmt, sp_io_cols, SP_IO_NCOLS, out->note);
}

static void sp_io_rank_row(void *ctx, int rank, const int64_t *v, const char *name) {
  sp_io_row(&((sp_io_out_t *)ctx)->tb, rank, v, name, 0, 0, 0);
}

static void sp_io_file_row(void *ctx, const int64_t *v, const char *name, int slow_rank,
                           int64_t slow_ns, int ranks) {
  sp_io_row(&((sp_io_out_t *)ctx)->tb, -1, v, name, slow_rank, slow_ns, ranks);
}

int sp_io_print(const sp_selection_t *sel, const sp_options_t *o) {
  char note[512];
  snprintf(note, sizeof note,
           "# %d rank%s; a row per (rank, file), then per file over the ranks (rank -);\n"
           "# *_s: time in the calls; bandwidth_Bps = (bytes_read + bytes_written) / "
           "(read_s + write_s);\n# slowest_rank: largest read_s + write_s + meta_s on the "
           "file, slowest_s that time",
           sel->nranks, sel->nranks == 1 ? "" : "s");
  sp_io_out_t out;
  memset(&out, 0, sizeof out);
  out.sel = sel;
  out.fmt = o->table;
  out.note = note;
  static const sp_io_visit_t visit = {sp_io_begin, sp_io_rank_row, sp_io_file_row};
  int found = 0, rc = sp_io_files_walk(sel, &visit, &out, &found);
  if (found) sp_table_end(&out.tb);
  if (rc == 0 && !found) {
    sp_msg(SP_QUIET,
           "%s: no I/O records on the selected ranks (record them with "
           "SCOPE_PROFILER_PROFILE_IO=1; docs/io.md)",
           sel->file);
    rc = SP_EXIT_DATA;
  }
  return rc;
}
