/* io_table.c - --io: the files a run read and wrote (SCOPE_PROFILER_PROFILE_IO).
 *
 * One table: a row per (rank, file) as each selected rank's records are
 * read (one rank in memory at a time), then a row per file over the
 * selected ranks (rank "-"), which keeps one sum per distinct path.
 * bandwidth_Bps = (bytes_read + bytes_written) / (read_s + write_s);
 * slowest_rank: the rank with the largest read + write + metadata time on
 * the file, slowest_s that time. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

typedef struct sp_io_sum {
  char *name;
  int64_t v[SP_READER_IO_NCOLS];
  int ranks;
  int slow_rank;
  int64_t slow_ns; /* -1 before the first rank */
} sp_io_sum_t;

typedef struct sp_io_sums {
  sp_io_sum_t *v;
  int n, cap;
  int *slot; /* open addressing over v, size hcap (a power of two), -1 empty */
  int hcap;
} sp_io_sums_t;

static uint64_t sp_io_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static int sp_io_rehash(sp_io_sums_t *t, int hcap) {
  int *slot = malloc((size_t)hcap * sizeof *slot);
  if (!slot) return -1;
  for (int i = 0; i < hcap; i++) slot[i] = -1;
  for (int i = 0; i < t->n; i++) {
    uint64_t h = sp_io_hash(t->v[i].name) & (uint64_t)(hcap - 1);
    while (slot[h] >= 0) h = (h + 1) & (uint64_t)(hcap - 1);
    slot[h] = i;
  }
  free(t->slot);
  t->slot = slot;
  t->hcap = hcap;
  return 0;
}

/* The sum of the file named name, made when new; NULL without memory. */
static sp_io_sum_t *sp_io_sum_of(sp_io_sums_t *t, const char *name) {
  if (2 * (t->n + 1) > t->hcap && sp_io_rehash(t, t->hcap ? 2 * t->hcap : 64) != 0) return NULL;
  uint64_t h = sp_io_hash(name) & (uint64_t)(t->hcap - 1);
  for (; t->slot[h] >= 0; h = (h + 1) & (uint64_t)(t->hcap - 1))
    if (strcmp(t->v[t->slot[h]].name, name) == 0) return &t->v[t->slot[h]];
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    sp_io_sum_t *v = realloc(t->v, (size_t)cap * sizeof *v);
    if (!v) return NULL;
    t->v = v;
    t->cap = cap;
  }
  sp_io_sum_t *s = &t->v[t->n];
  memset(s, 0, sizeof *s);
  s->name = strdup(name);
  if (!s->name) return NULL;
  s->slow_ns = -1;
  t->slot[h] = t->n++;
  return s;
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

/* What the table needs while the ranks are read. */
typedef struct sp_io_run {
  sp_table_t tb;
  int begun; /* the header waits for the first rank with records */
  const char *note;
  sp_table_format_t fmt;
  sp_io_sums_t sums;
} sp_io_run_t;

/* The rows of rank index j's files, added into the sums. */
static int sp_io_rank(const sp_selection_t *sel, int j, sp_io_run_t *run) {
  sp_reader_io_files_t f;
  int rc = sp_reader_io_files_load(sel->reader, sel->ranks[j], &f);
  if (rc != 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(rc);
  }
  int id = sp_reader_rank_id(sel->reader, sel->ranks[j]);
  if (f.present && !run->begun) {
    if (run->fmt == SP_TABLE_TEXT) sp_run_meta_note(sel->reader, stdout);
    sp_table_begin(&run->tb, run->fmt, sp_io_cols, SP_IO_NCOLS, run->note);
    run->begun = 1;
  }
  for (int64_t i = 0; rc == 0 && i < f.n; i++) {
    int64_t v[SP_READER_IO_NCOLS];
    for (int c = 0; c < SP_READER_IO_NCOLS; c++) v[c] = f.v[c][i];
    sp_io_row(&run->tb, id, v, f.names[i], 0, 0, 0);
    sp_io_sum_t *s = sp_io_sum_of(&run->sums, f.names[i]);
    if (!s) {
      rc = SP_EXIT_IO;
      break;
    }
    int64_t sat = 0;
    for (int c = 0; c < SP_READER_IO_NCOLS; c++) s->v[c] = sp_add_sat(s->v[c], v[c], &sat);
    int64_t t = sp_add_sat(sp_add_sat(v[SP_READER_IO_READ_NS], v[SP_READER_IO_WRITE_NS], &sat),
                           v[SP_READER_IO_META_NS], &sat);
    if (t > s->slow_ns) s->slow_ns = t, s->slow_rank = id;
    s->ranks++;
  }
  sp_reader_io_files_free(&f);
  return rc;
}

static int sp_io_name_cmp(const void *a, const void *b) {
  return strcmp(((const sp_io_sum_t *)a)->name, ((const sp_io_sum_t *)b)->name);
}

int sp_io_print(const sp_selection_t *sel, const sp_options_t *o) {
  char note[512];
  snprintf(note, sizeof note,
           "# %d rank%s; a row per (rank, file), then per file over the ranks (rank -);\n"
           "# *_s: time in the calls; bandwidth_Bps = (bytes_read + bytes_written) / "
           "(read_s + write_s);\n# slowest_rank: largest read_s + write_s + meta_s on the "
           "file, slowest_s that time",
           sel->nranks, sel->nranks == 1 ? "" : "s");
  sp_io_run_t run;
  memset(&run, 0, sizeof run);
  run.note = note;
  run.fmt = o->table;
  int rc = 0;
  for (int j = 0; rc == 0 && j < sel->nranks; j++) rc = sp_io_rank(sel, j, &run);
  if (rc == 0 && !run.begun) {
    sp_msg(SP_QUIET,
           "%s: no I/O records on the selected ranks (record them with "
           "SCOPE_PROFILER_PROFILE_IO=1; docs/io.md)",
           sel->file);
    rc = SP_EXIT_DATA;
  }
  if (run.begun) {
    sp_io_sums_t *t = &run.sums;
    qsort(t->v, (size_t)t->n, sizeof *t->v, sp_io_name_cmp);
    for (int i = 0; rc == 0 && i < t->n; i++)
      sp_io_row(&run.tb, -1, t->v[i].v, t->v[i].name, t->v[i].slow_rank, t->v[i].slow_ns,
                t->v[i].ranks);
    sp_table_end(&run.tb);
  }
  for (int i = 0; i < run.sums.n; i++) free(run.sums.v[i].name);
  free(run.sums.v);
  free(run.sums.slot);
  return rc;
}
