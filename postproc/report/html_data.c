/* html_data.c - the data part of report.html, written as one JSON object.
 *
 * One lane per (region, rank, thread). A lane's intervals are embedded
 * exactly (start deltas and durations in ns) while the report's exact
 * budget lasts, smallest lanes first; the other lanes get their busy
 * fraction per time bin (0..255) at several resolutions, coarsest
 * SP_HTML_OCC_COARSE bins, each level 4 times finer, the finest chosen so
 * that all binned lanes fit SP_HTML_OCC_BYTES. The viewer draws exact
 * lanes from the intervals and binned lanes from the level that matches
 * the zoom, so the file and its drawing cost stay bounded by the budgets,
 * not by the trace. Each lane lists its call paths (nodes of the call
 * tree, html_paths.c) and exact lanes give each interval's path; binned
 * lanes also get exact calls per time tile where they fit (html_tiles.c,
 * a third pass). Lanes are read one rank at a time (its selected pairs
 * together: a call's path depends on the other regions' calls). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"
#include "html_data.h"
#include "palette.h"

/* Lane sizes for the qsort below (C11 qsort takes no context). */
static const int64_t *sp_sort_counts;
static int sp_cmp_lane_size(const void *a, const void *b) {
  int64_t x = sp_sort_counts[*(const int *)a], y = sp_sort_counts[*(const int *)b];
  return x < y ? -1 : x > y;
}

/* Pass 1: span of the selection, lane sizes, the exact budget and the
 * occupancy resolution. */
static int sp_html_plan(sp_html_ctx_t *x) {
  const sp_selection_t *sel = x->sel;
  int64_t t0 = INT64_MAX, t1 = INT64_MIN, total = 0;
  int64_t *cnt = calloc((size_t)sel->nlanes + 1, sizeof *cnt);
  int *ord = malloc(((size_t)sel->nlanes + 1) * sizeof *ord);
  x->exact = calloc((size_t)sel->nlanes + 1, 1);
  if (!cnt || !ord || !x->exact) {
    free(cnt), free(ord);
    sp_msg(SP_QUIET, "out of memory");
    return SP_EXIT_IO;
  }
  for (int i = 0; i < sel->nlanes; i++) {
    int64_t a, b;
    sp_progress("scanning lane", i, sel->nlanes);
    int err = sp_reader_extent(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &a, &b);
    if (err < 0) {
      sp_progress_done();
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      free(cnt), free(ord);
      return sp_exit_for_reader(err);
    }
    sp_reader_info_t info;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    cnt[i] = info.num_intervals;
    ord[i] = i;
    total += cnt[i];
    if (cnt[i] == 0) continue;
    if (a < t0) t0 = a;
    if (b > t1) t1 = b;
  }
  sp_progress_done();
  if (total == 0 && sp_selection_no_stamps(sel)) { /* the call tree and stored figures only */
    free(cnt), free(ord);
    x->nostamps = 1;
    x->t0 = 0;
    x->span = 1.0;
    return 0;
  }
  if (total == 0) {
    free(cnt), free(ord);
    sp_msg(SP_QUIET,
           "%s: nothing to draw: the selected regions have no intervals (empty, or "
           "recorded with time_trace off); --summary still shows call counts",
           sel->file);
    return SP_EXIT_DATA;
  }
  x->t0 = t0;
  x->span = t1 > t0 ? sp_ns_between(t0, t1) : 1.0;
  sp_sort_counts = cnt;
  qsort(ord, (size_t)sel->nlanes, sizeof *ord, sp_cmp_lane_size);
  int64_t used = 0;
  int binned = 0;
  for (int k = 0; k < sel->nlanes; k++) {
    int i = ord[k];
    if (cnt[i] > 0 && used + cnt[i] <= x->exact_max && !binned) {
      x->exact[i] = 1;
      used += cnt[i];
    } else if (cnt[i] > 0) {
      binned++; /* once a lane is binned, larger ones are too */
    }
  }
  /* Finest level: 4x steps while every binned lane's levels fit the budget. */
  x->fine = SP_HTML_OCC_COARSE;
  x->nlevels = 1;
  while (x->fine * 4 <= SP_HTML_OCC_FINE &&
         (double)binned * (x->fine * 4) * 4.0 / 3.0 <= SP_HTML_OCC_BYTES) {
    x->fine *= 4;
    x->nlevels++;
  }
  free(cnt), free(ord);
  return 0;
}

static int sp_cmp_i32(const void *a, const void *b) {
  int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;
  return p < q ? -1 : p > q;
}

/* Statistics of the region (durations, per-rank total) from one pair. */
static void sp_html_stat(sp_html_ctx_t *x, int li, const sp_reader_intervals_t *iv) {
  double sum = 0, mn = 0, mx = 0;
  for (int64_t i = 0; i < iv->n; i++) {
    double d = sp_ns_between(iv->start[i], iv->end[i]);
    sum += d;
    if (i == 0 || d < mn) mn = d;
    if (i == 0 || d > mx) mx = d;
  }
  sp_html_stat_sums(x, li, iv->n, iv->num_calls, sum, mn, mx);
}

/* An aggregate file's region statistics: its stored figures per rank
 * (n: the calls of pairs that store their total; a counts-only file has
 * no duration bars). */
static void sp_html_agg_stats(sp_html_ctx_t *x) {
  const sp_selection_t *sel = x->sel;
  for (int i = 0; i < sel->nregions; i++)
    for (int k = 0; k < sel->nranks; k++) {
      sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
      if (sp_reader_aggregate(sel->reader, sel->regions[i], sel->ranks[k], &ag) != 0 ||
          !ag.present || ag.calls <= 0)
        continue;
      sp_rstat_t *r = &x->rs[i];
      double sum = (ag.have & SP_READER_AGG_TOTAL) ? (double)ag.total : 0.0;
      double mn = (ag.have & SP_READER_AGG_MIN) ? (double)ag.min : 0.0;
      double mx = (ag.have & SP_READER_AGG_MAX) ? (double)ag.max : 0.0;
      if (r->n == 0 || mn < r->min) r->min = mn;
      if (r->n == 0 || mx > r->max) r->max = mx;
      if (ag.have & SP_READER_AGG_TOTAL) r->n += ag.calls; /* calls with known durations */
      r->calls += ag.calls;
      r->total += sum;
      r->rk_min = r->rk_n == 0 || sum < r->rk_min ? sum : r->rk_min;
      r->rk_max = r->rk_n == 0 || sum > r->rk_max ? sum : r->rk_max;
      r->rk_sum += sum;
      r->rk_n++;
    }
}

/* With representative ranks (html_dist.c): the regions' figures over
 * every selected rank, from the per-(region, rank) figures read for them
 * (the same sums as sp_html_stat's; calls = timed calls). */
static void sp_html_dist_stats(sp_html_ctx_t *x) {
  const sp_chart_stats_t *st = &x->dist->st;
  memset(x->rs, 0, (size_t)st->nregions * sizeof *x->rs);
  for (int g = 0; g < st->nregions; g++)
    for (int k = 0; k < st->nranks; k++) {
      const sp_cell_stats_t *c = &st->cell[(size_t)g * st->nranks + k];
      if (c->n <= 0) continue;
      sp_rstat_t *r = &x->rs[g];
      if (r->n == 0 || c->min < r->min) r->min = c->min;
      if (r->n == 0 || c->max > r->max) r->max = c->max;
      r->n += c->n;
      r->calls += c->n;
      r->total += c->total;
      r->rk_min = r->rk_n == 0 || c->total < r->rk_min ? c->total : r->rk_min;
      r->rk_max = r->rk_n == 0 || c->total > r->rk_max ? c->total : r->rk_max;
      r->rk_sum += c->total;
      r->rk_n++;
    }
}

/* The lanes of one loaded pair with its nodes: split by thread, each
 * sorted; written as lanes (pass 2) or as tiles (pass 3). */
static int sp_html_pair(sp_html_ctx_t *x, int li, const sp_reader_intervals_t *iv,
                        const int32_t *node, int tiles_pass) {
  sp_span_t *sp = malloc(((size_t)iv->n + 1) * sizeof *sp);
  int32_t *tids = malloc(((size_t)iv->n + 1) * sizeof *tids);
  int rc = sp && tids ? 0 : SP_EXIT_IO;
  int64_t nt = 0;
  /* An exact lane's values per call (the tooltip's): the pair's, whole. */
  sp_reader_values_t vals = {0};
  const sp_lane_t *ln = &x->sel->lanes[li];
  if (rc == 0 && !tiles_pass && x->exact[li] &&
      sp_reader_values_load(x->sel->reader, ln->region, ln->rank, &vals) < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(x->sel->reader));
    rc = SP_EXIT_DATA;
  }
  for (int64_t i = 0; rc == 0 && i < iv->n; i++) tids[i] = iv->thread_ids ? iv->thread_ids[i] : 0;
  if (rc == 0) qsort(tids, (size_t)iv->n, sizeof *tids, sp_cmp_i32);
  for (int64_t i = 0; rc == 0 && i < iv->n; i++)
    if (i == 0 || tids[i] != tids[nt - 1]) tids[nt++] = tids[i];
  for (int64_t t = 0; rc == 0 && t < nt; t++) {
    int64_t m = 0;
    for (int64_t i = 0; i < iv->n; i++)
      if (!iv->thread_ids || iv->thread_ids[i] == tids[t])
        sp[m++] = (sp_span_t){iv->start[i], iv->end[i], node[i], i};
    if (tiles_pass) {
      qsort(sp, (size_t)m, sizeof *sp, sp_html_span_cmp);
      sp_html_tiles_lane(x->tiles, x->f, li, tids[t], sp, m, x->c);
    } else {
      rc = sp_html_lane_out(x, li, tids[t], sp, m, &vals);
    }
  }
  sp_reader_values_free(&vals);
  free(sp), free(tids);
  return rc;
}

/* One rank (its selected lanes lis[0..n-1]): every pair loaded, the call
 * path of each interval from the sweep over all of them (html_paths.c),
 * then each pair's lanes written. Pass 3 (tiles_pass) only rereads ranks
 * with chosen tiles. Memory: the rank's pairs, as the call tree's build. */
static int sp_html_rank(sp_html_ctx_t *x, const int *lis, int n, int tiles_pass) {
  sp_reader_intervals_t *iv = calloc((size_t)n + 1, sizeof *iv);
  int32_t **node = calloc((size_t)n + 1, sizeof *node);
  int *regs = malloc(((size_t)n + 1) * sizeof *regs);
  int rc = iv && node && regs ? 0 : SP_EXIT_IO, loaded = 0, said = 0;
  for (int q = 0; rc == 0 && q < n; q++, loaded++) {
    const sp_lane_t *ln = &x->sel->lanes[lis[q]];
    regs[q] = ln->region;
    int err = sp_reader_load(x->sel->reader, ln->region, ln->rank, &iv[q]);
    if (err < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(x->sel->reader));
      rc = sp_exit_for_reader(err);
      said = 1;
      break;
    }
    node[q] = malloc(((size_t)iv[q].n + 1) * sizeof **node);
    if (!node[q]) rc = SP_EXIT_IO;
  }
  /* Pass 3 needs the paths only for lanes with several (their tiles give
   * each call's path); else the nodes are not read. */
  int paths = !tiles_pass;
  for (int q = 0; !paths && q < n; q++) paths = sp_html_tiles_multi(x->tiles, lis[q]);
  if (rc == 0 && paths && n > 0)
    rc = sp_html_paths_rank(x->paths, x->sel->lanes[lis[0]].rank, iv, regs, n, node);
  for (int q = 0; rc == 0 && !paths && q < n; q++)
    memset(node[q], 0xff, ((size_t)iv[q].n + 1) * sizeof **node);
  for (int q = 0; rc == 0 && q < n; q++) {
    if (!tiles_pass) {
      sp_html_stat(x, lis[q], &iv[q]);
      x->c->intervals += iv[q].n;
      const sp_lane_t *ln = &x->sel->lanes[lis[q]];
      rc = sp_html_balance_pair(x->bal, x->gpos[ln->region], ln->rank, &iv[q]);
    }
    if (rc != 0) break;
    rc = sp_html_pair(x, lis[q], &iv[q], node[q], tiles_pass);
    /* A failed write (full disk) ends the run: the caller says why. */
    if (rc == 0 && ferror(x->f)) rc = SP_EXIT_IO;
  }
  /* What is left: out of memory (a write error's message is the caller's). */
  if (rc == SP_EXIT_IO && !said && !ferror(x->f)) sp_msg(SP_QUIET, "out of memory");
  for (int q = 0; q < loaded; q++) sp_reader_intervals_free(&iv[q]), free(node[q]);
  free(iv), free(node), free(regs);
  return rc;
}

/* 1 when the rank of lanes lis[0..n-1] is swept from the reader's merge
 * (html_stream.c): more calls than the stream bound (sp_reader_stream_calls,
 * as the call tree; SCOPE_PROFILER_READER_STREAM=0 streams every rank) and
 * no call ids (their paths need the rank's calls together). Memory then
 * follows the regions and the embedded calls, not the rank's calls. */
static int sp_html_streamed(const sp_html_ctx_t *x, const int *lis, int n) {
  if (sp_html_paths_ids(x->paths)) return 0;
  int64_t calls = 0;
  for (int q = 0; q < n; q++) {
    sp_reader_info_t info;
    if (sp_reader_info(x->sel->reader, x->sel->lanes[lis[q]].region, x->sel->lanes[lis[q]].rank,
                       &info) == 0)
      calls += info.num_intervals;
  }
  return calls > sp_reader_stream_calls();
}

/* Passes 2 and 3 rank by rank (lanes grouped by rank index). */
static int sp_html_ranks(sp_html_ctx_t *x, int tiles_pass) {
  const sp_selection_t *sel = x->sel;
  int nk = sp_reader_num_ranks(sel->reader);
  int *first = calloc((size_t)nk + 2, sizeof *first),
      *lis = malloc(((size_t)sel->nlanes + 1) * sizeof *lis);
  if (!first || !lis) {
    free(first), free(lis);
    sp_msg(SP_QUIET, "out of memory");
    return SP_EXIT_IO;
  }
  for (int i = 0; i < sel->nlanes; i++) first[sel->lanes[i].rank + 2]++;
  for (int k = 0; k < nk; k++) first[k + 2] += first[k + 1];
  for (int i = 0; i < sel->nlanes; i++) lis[first[sel->lanes[i].rank + 1]++] = i;
  int rc = 0;
  for (int k = 0; rc == 0 && k < nk; k++) {
    int a = first[k], b = first[k + 1], want = !tiles_pass;
    for (int q = a; !want && q < b; q++) want = sp_html_tiles_wanted(x->tiles, lis[q]);
    sp_progress(tiles_pass ? "writing tiles of rank" : "writing rank", k, nk);
    if (b > a && want)
      rc = sp_html_streamed(x, lis + a, b - a) ? sp_html_rank_stream(x, lis + a, b - a, tiles_pass)
                                               : sp_html_rank(x, lis + a, b - a, tiles_pass);
  }
  sp_progress_done();
  free(first), free(lis);
  return rc;
}

/* An MPI call region's bytes and msgs over the selected ranks (as
 * --summary --columns bytes,msgs), when some rank stores them; only regions
 * named MPI_* are looked at, so other regions cost no lookup. */
static void sp_html_mpi(FILE *f, const sp_selection_t *sel, int g) {
  const char *name = sp_reader_region_name(sel->reader, g);
  if (strncmp(name, "MPI_", 4) != 0) return;
  int64_t bytes = 0, msgs = 0;
  int have = 0;
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_mpi_t m;
    if (sp_reader_mpi_load(sel->reader, g, sel->ranks[j], &m) < 0 || !m.present) continue;
    have = 1;
    for (int64_t k = 0; k < m.n; k++) {
      if (m.bytes[k] > 0) bytes += m.bytes[k];
      msgs += m.peer[k] >= 0 || m.bytes[k] > 0;
    }
    sp_reader_mpi_free(&m);
  }
  if (have) fprintf(f, ",\"bytes\":%lld,\"msgs\":%lld", (long long)bytes, (long long)msgs);
}

static int sp_html_regions(sp_html_ctx_t *x) {
  FILE *f = x->f;
  const sp_selection_t *sel = x->sel;
  /* The colours of the PNG charts: --cmap sampled over the sorted names. */
  const char **names = malloc(((size_t)sel->nregions + 1) * sizeof *names);
  unsigned char *rgb = malloc(3 * ((size_t)sel->nregions + 1));
  if (!names || !rgb) {
    free(names), free(rgb);
    sp_msg(SP_QUIET, "out of memory");
    return SP_EXIT_IO;
  }
  for (int i = 0; i < sel->nregions; i++)
    names[i] = sp_reader_region_name(sel->reader, sel->regions[i]);
  sp_palette_assign(x->cmap, names, sel->nregions, rgb);
  fputs("],\n\"regions\":[", f);
  for (int i = 0; i < sel->nregions; i++) {
    const sp_rstat_t *r = &x->rs[i];
    fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
    sp_html_json_str(f, sp_reader_region_name(sel->reader, sel->regions[i]));
    char hex[8];
    sp_palette_hex(rgb + 3 * i, hex);
    fprintf(f, ",\"color\":\"%s\"", hex);
    /* Ranks without the region count as 0 in min and mean, as in --summary. */
    int nranks = x->all->nranks;
    double rk_min = r->rk_n < nranks ? 0 : r->rk_min;
    fprintf(f,
            ",\"calls\":%lld,\"n\":%lld,\"total\":%.0f,\"min\":%.0f,\"max\":%.0f,"
            "\"rank_min\":%.0f,\"rank_mean\":%.1f,\"rank_max\":%.0f,\"ranks\":%d",
            (long long)r->calls, (long long)r->n, r->total, r->min, r->max, rk_min,
            r->rk_sum / nranks, r->rk_max, r->rk_n);
    sp_html_mpi(f, x->all, sel->regions[i]);
    char src[4200]; /* where in the source (sp_region_at, SP_SCOPE, ...) */
    if (sp_region_source_text(sel->reader, sel->regions[i], src, sizeof src)) {
      fputs(",\"src\":", f);
      sp_html_json_str(f, src);
    }
    fputc('}', f);
  }
  fputs("]", f);
  free(names), free(rgb);
  return 0;
}

/* The program's run metadata (sp_metadata_set) as [key, value] text pairs,
 * at most 256 keys of 255 bytes, values cut at 4096 bytes. */
static void sp_html_meta(sp_html_ctx_t *x) {
  sp_reader_t *r = x->sel->reader;
  int n = sp_reader_metadata_count(r), shown = 0;
  char key[256], *val = malloc(4097);
  for (int i = 0; val && i < n && shown < 256; i++) {
    if (!sp_run_meta_get(r, i, key, sizeof key, val, 4097)) continue;
    fputs(shown++ ? ",{\"k\":" : ",\n\"meta\":[{\"k\":", x->f);
    sp_html_json_str(x->f, key);
    fputs(",\"v\":", x->f);
    sp_html_json_str(x->f, val);
    fputc('}', x->f);
  }
  if (shown) fputc(']', x->f);
  free(val);
}

static void sp_html_header(sp_html_ctx_t *x) {
  FILE *f = x->f;
  fputs("{\"format\":1,\"file\":", f);
  sp_html_json_str(f, x->sel->file);
  if (x->nostamps) fputs(",\"stamps\":0", f);
  sp_html_meta(x);
  fprintf(f,
          ",\"generator\":\"" SP_PROG " %s\",\"span\":%.0f,\"coarse\":%d,\"levels\":%d,\"ranks\":[",
          sp_reader_version_string(), x->span, SP_HTML_OCC_COARSE, x->nlevels);
  for (int j = 0; j < x->sel->nranks; j++)
    fprintf(f, "%s%d", j ? "," : "", sp_reader_rank_id(x->sel->reader, x->sel->ranks[j]));
  /* --start-time/--end-time: the window the page opens with (ns). */
  fprintf(f, "],\"window\":[%.0f,%.0f],\n\"lanes\":[", 1e9 * x->start_time,
          x->end_time > 0 ? 1e9 * x->end_time : x->span);
}

int sp_html_data_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels,
                       const sp_options_t *o, const sp_html_dist_t *d, sp_html_counts_t *c) {
  const sp_selection_t *sel = d && d->active ? &d->view : &sels[0];
  sp_html_ctx_t x;
  memset(&x, 0, sizeof x);
  memset(c, 0, sizeof *c);
  x.f = f;
  x.sel = sel;
  x.all = &sels[0];
  x.dist = d && d->active ? d : NULL;
  x.c = c;
  x.first_lane = 1;
  x.exact_max = o->html_exact;
  x.cmap = o->cmap;
  x.start_time = o->start_time;
  x.end_time = o->end_time;
  int rc = sp_html_plan(&x);
  int nreg = sp_reader_num_regions(sel->reader);
  int64_t maxn = 0;
  for (int i = 0; rc == 0 && i < sel->nlanes; i++) {
    sp_reader_info_t info;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    if (info.num_intervals > maxn) maxn = info.num_intervals;
  }
  /* The call tree over every selected rank (its figures are per path, not per rank). */
  if (rc == 0) rc = sp_html_tree_build(x.all, &x.tree);
  if (rc == 0) {
    x.occ = malloc((2 * (size_t)x.fine + 1) * sizeof *x.occ);
    x.lvl = malloc(sp_html_levels_size(&x));
    x.gpos = malloc(((size_t)nreg + 1) * sizeof *x.gpos);
    x.rs = calloc((size_t)sel->nregions + 1, sizeof *x.rs);
    x.lpaths = malloc(((size_t)maxn + 1) * sizeof *x.lpaths);
    x.tiles = sp_html_tiles_new(x.t0, x.span, o->html_exact / SP_HTML_TILE_SHARE);
    x.bal = sp_html_balance_new(sel, x.t0, x.span);
    if (!x.bal || !x.occ || !x.lvl || !x.gpos || !x.rs || !x.lpaths || !x.tiles ||
        sp_html_paths_new(&x.paths, x.tree, sel->reader) != 0) {
      sp_msg(SP_QUIET, "out of memory");
      rc = SP_EXIT_IO;
    }
  }
  if (rc == 0) {
    for (int i = 0; i < sel->nregions; i++) x.gpos[sel->regions[i]] = i;
    sp_html_header(&x);
    if (x.nostamps)
      sp_html_agg_stats(&x), sp_html_balance_agg(x.bal);
    else
      rc = sp_html_ranks(&x, 0);
    if (rc == 0 && x.dist) sp_html_dist_stats(&x);
  }
  if (rc == 0) rc = sp_html_regions(&x);
  if (rc == 0) sp_html_tree_write(f, x.tree, x.gpos);
  if (rc == 0) sp_html_balance_write(f, x.bal);
  if (rc == 0) rc = sp_html_dist_write(f, x.dist);
  if (rc == 0) {
    fprintf(f, ",\n\"tiles\":{\"n\":%d,\"lanes\":[", SP_HTML_TILES);
    if (!x.nostamps && sp_html_tiles_plan(x.tiles)) rc = sp_html_ranks(&x, 1);
    fputs("]}", f);
  }
  if (rc == 0) rc = sp_html_files_write(f, sels, nfiles, labels);
  if (rc == 0) rc = sp_html_run_write(f, sels, nfiles, labels, o);
  if (rc == 0 && !x.nostamps) rc = sp_html_samples_write(f, sel, x.t0);
  if (rc == 0 && !x.nostamps) rc = sp_html_waits_write(f, sel, x.t0);
  if (rc == 0) rc = sp_html_io_write(f, sel, x.tree, x.gpos);
  if (rc == 0) {
    fprintf(f,
            ",\n\"counts\":{\"intervals\":%lld,\"exact\":%lld,\"lanes\":%d,\"binned\":%d,"
            "\"tiled\":%lld,\"tiles\":%d}}",
            (long long)c->intervals, (long long)c->exact, c->lanes, c->binned_lanes,
            (long long)c->tiled, c->tiles);
    c->fine_bins = c->binned_lanes ? x.fine : 0;
  }
  sp_reader_tree_free(x.tree);
  sp_html_paths_free(x.paths);
  sp_html_tiles_free(x.tiles);
  sp_html_balance_free(x.bal);
  free(x.exact), free(x.occ), free(x.lvl), free(x.gpos), free(x.rs), free(x.lpaths);
  return rc;
}
