/* selection.c - from options to lanes: open the file, filter regions, parse --ranks. */
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

/* Parses one decimal number at *s; returns -1 if none or too large. */
static long sp_number(const char **s) {
  long v = 0;
  const char *p = *s;
  if (*p < '0' || *p > '9') return -1;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p - '0');
    if (v > 999999999L) return -1;
    p++;
  }
  *s = p;
  return v;
}

/* Marks rank ids lo..hi in want[] (indexed by rank index). */
static int sp_ranks_mark(sp_reader_t *r, long lo, long hi, char *want, const char *word) {
  for (long id = lo; id <= hi; id++) {
    int k = sp_reader_rank_index(r, (int)id);
    if (k < 0) {
      int n = sp_reader_num_ranks(r);
      sp_msg(SP_QUIET, "--ranks %s: the file has no rank %ld (it has %d rank%s, ids %d to %d)",
             word, id, n, n == 1 ? "" : "s", sp_reader_rank_id(r, 0), sp_reader_rank_id(r, n - 1));
      return SP_EXIT_USAGE;
    }
    want[k] = 1;
  }
  return 0;
}

int sp_ranks_parse(const char *const *words, size_t nwords, sp_reader_t *r, int **out, int *n) {
  int nr = sp_reader_num_ranks(r);
  char *want = calloc((size_t)nr, 1);
  int rc = want ? 0 : SP_EXIT_IO;
  for (size_t w = 0; rc == 0 && w < nwords; w++) {
    const char *s = words[w];
    for (;;) {
      long lo = sp_number(&s), hi = lo;
      if (lo >= 0 && *s == '-') {
        s++;
        hi = sp_number(&s);
      }
      if (lo < 0 || hi < lo || (*s != ',' && *s != '\0')) {
        sp_msg(SP_QUIET, "--ranks: cannot parse '%s' (expected forms: 3, 0-3, 0,2,4-7)", words[w]);
        rc = SP_EXIT_USAGE;
        break;
      }
      rc = sp_ranks_mark(r, lo, hi, want, words[w]);
      if (rc || *s == '\0') break;
      s++;
    }
  }
  *n = 0;
  *out = rc ? NULL : malloc((size_t)nr * sizeof **out);
  if (rc == 0 && !*out) rc = SP_EXIT_IO;
  for (int k = 0; rc == 0 && k < nr; k++)
    if (want[k] || nwords == 0) (*out)[(*n)++] = k;
  free(want);
  return rc;
}

static int sp_lanes_build(sp_selection_t *sel) {
  size_t cap = (size_t)sel->nregions * (size_t)sel->nranks;
  sel->lanes = malloc((cap ? cap : 1) * sizeof *sel->lanes);
  if (!sel->lanes) return SP_EXIT_IO;
  sel->t0 = INT64_MAX;
  for (int i = 0; i < sel->nregions; i++)
    for (int j = 0; j < sel->nranks; j++) {
      sp_reader_info_t info;
      sp_reader_info(sel->reader, sel->regions[i], sel->ranks[j], &info);
      if (!info.present) continue;
      sel->lanes[sel->nlanes].region = sel->regions[i];
      sel->lanes[sel->nlanes].rank = sel->ranks[j];
      sel->nlanes++;
      if (info.first_start < sel->t0) sel->t0 = info.first_start;
    }
  return 0;
}

int sp_selection_build(const sp_options_t *o, sp_selection_t *sel) {
  memset(sel, 0, sizeof *sel);
  sel->file = o->file;
  sel->order = calloc(1, sizeof *sel->order); /* NULL: trees are not shared, nothing fails */
  char why[1024];
  int err = sp_reader_open(o->file, &sel->reader, why, sizeof why);
  if (err < 0) {
    sp_msg(SP_QUIET, "%s", why);
    return sp_exit_for_reader(err);
  }
  if (o->no_clock_align) sp_reader_set_clock_align(sel->reader, 0);
  sp_msg(SP_VERBOSE, "%s: %s", o->file,
         sp_reader_clock_aligned(sel->reader)
             ? "stamps aligned to rank 0's clock (--no-clock-align shows them as recorded)"
             : "stamps as recorded");
  int nreg = sp_reader_num_regions(sel->reader);
  sel->regions = malloc((nreg ? (size_t)nreg : 1) * sizeof *sel->regions);
  if (!sel->regions) return SP_EXIT_IO;
  err = sp_reader_filter(sel->reader, o->include, o->ninclude, o->exclude, o->nexclude,
                         sel->regions, &sel->nregions);
  if (err < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(err);
  }
  int rc = sp_ranks_parse(o->ranks, o->nranks, sel->reader, &sel->ranks, &sel->nranks);
  if (rc == 0) rc = sp_lanes_build(sel);
  if (rc == 0 && sel->nlanes == 0) {
    sp_msg(SP_QUIET, "%s: nothing selected (%d region%s in the file, %d after --include/--exclude)",
           o->file, nreg, nreg == 1 ? "" : "s", sel->nregions);
    rc = SP_EXIT_DATA;
  }
  sp_msg(SP_VERBOSE, "%s: %d ranks, %d regions; selected %d regions x %d ranks = %d lanes", o->file,
         sp_reader_num_ranks(sel->reader), nreg, sel->nregions, sel->nranks, sel->nlanes);
  return rc;
}

const char *sp_rank_host_shown(const sp_selection_t *sel, int k) {
  return sp_reader_num_hosts(sel->reader) > 1 ? sp_reader_rank_host(sel->reader, k) : NULL;
}

int sp_selection_view(const sp_selection_t *sel, const int *ranks, int n, const char *caption,
                      sp_selection_t *out) {
  memset(out, 0, sizeof *out);
  out->reader = sel->reader;
  out->file = sel->file;
  out->caption = caption;
  out->view = 1;
  out->order = calloc(1, sizeof *out->order);
  out->regions = malloc((size_t)(sel->nregions ? sel->nregions : 1) * sizeof *out->regions);
  out->ranks = malloc((size_t)(n ? n : 1) * sizeof *out->ranks);
  if (!out->regions || !out->ranks) return SP_EXIT_IO;
  memcpy(out->regions, sel->regions, (size_t)sel->nregions * sizeof *out->regions);
  memcpy(out->ranks, ranks, (size_t)n * sizeof *out->ranks);
  out->nregions = sel->nregions;
  out->nranks = n;
  return sp_lanes_build(out);
}

void sp_selection_free(sp_selection_t *sel) {
  if (!sel->view) sp_reader_close(sel->reader);
  free(sel->regions);
  free(sel->ranks);
  free(sel->lanes);
  sp_tree_order_free(sel->order);
  memset(sel, 0, sizeof *sel);
}

int sp_rank_block_end(const sp_selection_t *sel, int j0) {
  int64_t per = 0;
  for (int i = 0; i < sel->nregions; i++) {
    sp_reader_info_t info;
    if (sp_reader_info(sel->reader, sel->regions[i], sel->ranks[j0], &info) == 0)
      per += info.num_intervals;
  }
  int64_t b = per > 0 ? SP_RANK_BLOCK_CALLS / per : SP_RANK_BLOCK_CALLS;
  return b < 1 ? j0 + 1 : b >= sel->nranks - j0 ? sel->nranks : j0 + (int)b;
}
