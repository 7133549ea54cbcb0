/* gantt.c - the Gantt chart: one lane per (region, rank, thread), drawn
 * honestly: each pixel column of a lane is a bar as high as the share of
 * the column's time the lane is busy, so a lane's inked area is its busy
 * time (no minimum width that makes short calls look long).
 *
 * Two passes over the selected lanes, each holding one pair in memory:
 * the first finds the threads and the exact time span (ends are not
 * sorted when calls nest), the second loads each pair, bins each of its
 * lanes per pixel column and draws at most one rectangle per column. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <plplot.h>

#include "gantt.h"
#include "chart_lanes.h"
#include "chart_output.h"
#include "gantt_bins.h"
#include "pair_chunks.h"
#include "gantt_memory.h"
#include "plot_device.h"

/* Labels closer than this (in pixels) would overlap: see --help. */
#define SP_LABEL_PX 12.0
/* Plot area in normalized page coordinates (room for labels and legend). */
#define SP_VP_LEFT 0.17
#define SP_VP_RIGHT 0.84
#define SP_VP_BOTTOM_PX 60.0
#define SP_VP_TOP_PX 50.0

typedef struct sp_frame {
  int width, height; /* page, pixels */
  double vp[4];      /* viewport: xmin, xmax, ymin, ymax (normalized) */
  double x0, x1;     /* window, seconds since the first start */
  int ncols;         /* pixel columns of the plot area */
  int nlanes;
  const sp_gantt_mem_t *mem; /* RSS tracks under the lanes (gantt_memory.c) */
  double track[2];           /* their band: ymin, ymax (normalized) */
} sp_frame_t;

/* Lane labels, thinned so they stay SP_LABEL_PX apart: a region's first
 * lane shows "REGION rN" (" tT" for a thread lane), then every step-th
 * lane of the region "rN", skipping those too close to the next region's
 * first label. */
static void sp_gantt_labels(const sp_selection_t *sel, const sp_chart_lanes_t *l,
                            const sp_frame_t *f) {
  double plot_px = (f->vp[3] - f->vp[2]) * f->height;
  double lane_px = plot_px / l->n;
  int step = lane_px >= SP_LABEL_PX ? 1 : (int)(SP_LABEL_PX / lane_px) + 1;
  double last_y = -1e9;
  char text[256], name[160], thr[32];
  plcol0(SP_COL_FG);
  int block = 0, block_len = 0;
  for (int i = 0; i < l->n; i++) {
    const sp_chart_lane_t *ln = &l->lane[i];
    if (i == 0 || ln->region != l->lane[i - 1].region) {
      block = i;
      for (block_len = 1; i + block_len < l->n && l->lane[i + block_len].region == ln->region;)
        block_len++;
    }
    int j = i - block;
    double y = (i + 0.5) * lane_px;
    if (y - last_y < SP_LABEL_PX) continue;
    if (j > 0 && (j % step != 0 || block_len - j < step)) continue;
    int rank = sp_reader_rank_id(sel->reader, ln->rank);
    thr[0] = '\0';
    if (ln->thread >= 0) snprintf(thr, sizeof thr, " t%lld", (long long)ln->thread);
    /* The host where ranks span several (clock alignment, issue 28). */
    const char *host_raw = sp_rank_host_shown(sel, ln->rank);
    char host[80] = "";
    if (host_raw) {
      host[0] = '@';
      sp_plot_text(host_raw, host + 1, sizeof host - 1, 16);
    }
    if (j == 0 || step == 1) {
      sp_plot_text(sp_reader_region_name(sel->reader, ln->region), name, sizeof name, 24);
      /* Depth in the call tree as one middle dot per level before the name. */
      char dots[64] = "";
      for (int d = 0; d < ln->depth && d < 20; d++) strcat(dots, "\u00b7");
      snprintf(text, sizeof text, "%s%s%s r%d%s%s", dots, ln->depth ? " " : "", name, rank, host,
               thr);
    } else {
      snprintf(text, sizeof text, "r%d%s%s", rank, host, thr);
    }
    plmtex("lv", 0.5, 1.0 - (i + 0.5) / l->n, 1.0, text);
    last_y = y;
  }
}

/* Box, axis, title, region separators and labels of one panel. label:
 * the file's label with several files (NULL: the file name, one file). */
static void sp_gantt_frame(const sp_selection_t *sel, const sp_chart_lanes_t *l,
                           const sp_frame_t *f, const char *label) {
  char title[512], base[400];
  plschr(3.0, 1.0);
  plvpor(f->vp[0], f->vp[1], f->vp[2], f->vp[3]);
  plwind(f->x0, f->x1, 0.0, l->n);
  plcol0(SP_COL_GRID);
  for (int i = 1; i < l->n; i++)
    if (l->lane[i].region != l->lane[i - 1].region) pljoin(f->x0, l->n - i, f->x1, l->n - i);
  plcol0(SP_COL_FG);
  /* With RSS tracks the time axis is numbered under the last of them. */
  plbox(f->mem->n ? "bcst" : "bcnst", 0.0, 0, "bc", 0.0, 0);
  const char *slash = strrchr(sel->file, '/');
  sp_plot_text(label ? label : slash ? slash + 1 : sel->file, base, sizeof base, 80);
  snprintf(title, sizeof title, "scope-profiler: %s", base);
  plschr(3.6, 1.0);
  plmtex("t", 1.5, 0.5, 0.5, title);
  plschr(3.0, 1.0);
  if (sel->caption) { /* representative ranks drawn: which */
    sp_plot_text(sel->caption, base, sizeof base, 200);
    plmtex("t", 0.4, 0.5, 0.5, base);
  }
  if (!f->mem->n)
    plmtex("b", 3.0, 0.5, 0.5,
           "time since first start [s]; bar height = share of each pixel column the lane is busy");
  sp_gantt_labels(sel, l, f);
}

/* One lane: each pixel column a bar as high as the lane is busy in it, in
 * steps of one pixel of the lane's height (what a non-antialiased fill can
 * show), each column's rounding error carried to the next (error diffusion)
 * so that the lane's ink stays its busy time even where every column is a
 * fraction of a pixel level, as in lanes 2 px high; neighbouring columns of one height are one
 * rectangle, so a lane costs at most ncols fills whatever its intervals, and far fewer when its
 * lane is a few pixels high. Returns the rectangles drawn. */
static int64_t sp_gantt_lane_draw(const sp_frame_t *f, const sp_bins_t *b, int lane, int colour) {
  double lane_px = (f->vp[3] - f->vp[2]) * f->height / f->nlanes;
  double pad = lane_px >= 4.0 ? 0.12 : 0.0; /* gaps only when lanes are visible apart */
  PLFLT y0 = f->nlanes - lane - 1 + pad, h = 1.0 - 2 * pad;
  double levels = lround(lane_px * h) > 1 ? (double)lround(lane_px * h) : 1.0;
  double w = (f->x1 - f->x0) / f->ncols;
  int64_t drawn = 0;
  double carry = 0; /* rounding error passed on to the next column */
  plcol0(colour);
  for (int c = 0; c < f->ncols;) {
    double want = b->frac[c] * levels + carry;
    long q = lround(want);
    carry = want - q;
    int e = c + 1;
    while (e < f->ncols) {
      double next = b->frac[e] * levels + carry;
      if (lround(next) != q) break;
      carry = next - q;
      e++;
    }
    if (q > 0) {
      PLFLT xa = f->x0 + c * w, xb = f->x0 + e * w, yb = y0 + h * (double)q / levels;
      PLFLT x[4] = {xa, xb, xb, xa}, y[4] = {y0, y0, yb, yb};
      plfill(4, x, y);
      drawn++;
    }
    c = e;
  }
  return drawn;
}

/* Lanes of one pair binned in one pass over its slices. */
#define SP_GANTT_GROUP 64

typedef struct sp_gantt_pass {
  const sp_chart_lanes_t *l;
  int i, n;           /* lanes [i, i + n) */
  sp_bins_t *bins;    /* n */
  sp_bins_feed_t *st; /* n */
  int unsorted;
} sp_gantt_pass_t;

static int sp_gantt_slice(void *ctx, const int64_t *s, const int64_t *e, const int32_t *t,
                          int64_t at, int64_t n) {
  sp_gantt_pass_t *p = ctx;
  (void)at;
  for (int q = 0; q < p->n && !p->unsorted; q++)
    p->unsorted = sp_bins_feed(&p->bins[q], &p->st[q], s, e, t, p->l->lane[p->i + q].thread, n);
  return 0;
}

/* Lanes [i, i + n) of one pair (n <= SP_GANTT_GROUP) binned from its
 * slices and drawn; *unsorted 1 (nothing drawn) when a lane's starts are
 * out of order: the caller loads the pair. */
static int sp_gantt_group(const sp_selection_t *sel, const sp_chart_lanes_t *l, const sp_frame_t *f,
                          const sp_bins_t *like, int i, int n, sp_gantt_timing_t *tm,
                          int *unsorted) {
  sp_bins_t bins[SP_GANTT_GROUP];
  sp_bins_feed_t st[SP_GANTT_GROUP];
  int rc = 0, made = 0;
  for (; rc == 0 && made < n; made++) {
    rc = sp_bins_init(&bins[made], like->ncols, like->w0, like->w1) ? SP_EXIT_IO : 0;
    st[made] = SP_BINS_FEED;
  }
  sp_gantt_pass_t p = {l, i, n, bins, st, 0};
  double t = sp_now();
  const sp_chart_lane_t *ln = &l->lane[i];
  if (rc == 0)
    rc = sp_pair_chunks(sel->reader, sel->file, ln->region, ln->rank, sp_gantt_slice, &p);
  tm->read_s += sp_now() - t;
  *unsorted = p.unsorted;
  for (int q = 0; rc == 0 && !p.unsorted && q < n; q++) {
    sp_bins_finish(&bins[q]);
    tm->runs += sp_gantt_lane_draw(f, &bins[q], i + q, SP_COL_REGION0 + l->lane[i + q].colour);
  }
  for (int q = 0; q < made; q++) sp_bins_free(&bins[q]);
  return rc;
}

/* One pair loaded whole (a lane's starts out of order): its lanes [i, e). */
static int sp_gantt_loaded(const sp_selection_t *sel, const sp_chart_lanes_t *l,
                           const sp_frame_t *f, sp_bins_t *b, int i, int e, sp_gantt_timing_t *tm) {
  const sp_chart_lane_t *ln = &l->lane[i];
  sp_reader_intervals_t iv;
  double t = sp_now();
  int err = sp_reader_load(sel->reader, ln->region, ln->rank, &iv);
  tm->read_s += sp_now() - t;
  if (err < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(err);
  }
  for (int q = i; q < e; q++) {
    t = sp_now();
    sp_bins_reset(b);
    int bad = sp_bins_add(b, iv.start, iv.end, iv.thread_ids, l->lane[q].thread, iv.n);
    sp_bins_finish(b);
    tm->bin_s += sp_now() - t;
    if (bad) {
      sp_reader_intervals_free(&iv);
      return SP_EXIT_IO;
    }
    tm->runs += sp_gantt_lane_draw(f, b, q, SP_COL_REGION0 + l->lane[q].colour);
  }
  sp_reader_intervals_free(&iv);
  return 0;
}

/* Pass 2: each (region, rank) pair read in slices, its lanes binned in one
 * pass (SP_GANTT_GROUP at a time) and drawn, in lane order; a pair whose
 * lane's starts are out of order is loaded whole and sorted (as before). */
static int sp_gantt_lanes(const sp_selection_t *sel, const sp_chart_lanes_t *l, const sp_frame_t *f,
                          sp_bins_t *b, sp_gantt_timing_t *tm) {
  int rc = 0;
  for (int i = 0; rc == 0 && i < l->n;) {
    const sp_chart_lane_t *ln = &l->lane[i];
    sp_progress("drawing lane", i, l->n);
    sp_reader_info_t info;
    if (sp_reader_info(sel->reader, ln->region, ln->rank, &info) == 0 && info.present)
      tm->intervals += info.num_intervals;
    int e = i;
    while (e < l->n && l->lane[e].region == ln->region && l->lane[e].rank == ln->rank) e++;
    /* Groups drawn before an out-of-order lane stay drawn: the load draws
     * the rest (lanes never overlap). */
    int at = i, unsorted = 0;
    while (rc == 0 && !unsorted && at < e) {
      int n = e - at < SP_GANTT_GROUP ? e - at : SP_GANTT_GROUP;
      rc = sp_gantt_group(sel, l, f, b, at, n, tm, &unsorted);
      if (!unsorted) at += n;
    }
    if (rc == 0 && unsorted) rc = sp_gantt_loaded(sel, l, f, b, at, e, tm);
    i = e;
  }
  sp_progress_done();
  return rc;
}

/* Natural height of a panel of n lanes and RSS tracks, pixels (16 per lane). */
static int sp_gantt_natural(int nlanes, int ntracks) {
  return 120 + 16 * nlanes + (ntracks ? (int)(SP_TRACK_GAP_PX + ntracks * SP_TRACK_PX) : 0);
}

/* Plot area and time window of a panel in the band [y0, y1] (normalized)
 * of a page height pixels high. */
static int sp_gantt_geometry(const sp_options_t *o, const sp_chart_lanes_t *l, int height,
                             double y0, double y1, const sp_gantt_mem_t *mem, sp_frame_t *f) {
  f->width = o->width;
  f->height = height;
  f->nlanes = l->n;
  f->mem = mem;
  f->vp[0] = SP_VP_LEFT;
  f->vp[1] = SP_VP_RIGHT;
  f->vp[2] = y0 + SP_VP_BOTTOM_PX / f->height;
  f->vp[3] = y1 - SP_VP_TOP_PX / f->height;
  f->track[0] = f->track[1] = f->vp[2];
  if (mem->n) { /* the tracks' band at the bottom, at most half the plot area */
    double want = mem->n * SP_TRACK_PX / f->height, most = 0.5 * (f->vp[3] - f->vp[2]);
    f->track[1] = f->vp[2] + (want < most ? want : most);
    f->vp[2] = f->track[1] + SP_TRACK_GAP_PX / f->height;
  }
  f->ncols = (int)((f->vp[1] - f->vp[0]) * f->width);
  double span = l->t1 > l->t0 ? 1e-9 * sp_ns_between(l->t0, l->t1) : 1e-9;
  f->x0 = o->start_time;
  f->x1 = o->end_time > 0 ? o->end_time : span;
  if (f->x1 <= f->x0) {
    sp_msg(SP_QUIET,
           "--start-time %g s is not before the end of the window (%g s; the run "
           "spans %g s)",
           f->x0, f->x1, span);
    return SP_EXIT_USAGE;
  }
  double rows = (f->vp[3] - f->vp[2]) * f->height;
  if (l->n > rows)
    sp_msg(SP_NORMAL,
           "%d lanes on %.0f pixel rows: lanes are thinner than a pixel and blend; "
           "see rank_heatmap_plot (--plots rank_heatmap) for ranks x regions, or "
           "select with --ranks/--include",
           l->n, rows);
  return 0;
}

/* Window stamps: first start + seconds, saturated at the int64 range. */
static int64_t sp_gantt_stamp(int64_t t0, double sec) {
  double ns = sec * 1e9;
  int64_t clamped = 0, add = ns >= 9.2e18 ? INT64_MAX : (int64_t)ns;
  return sp_add_sat(t0, add, &clamped);
}

/* The lanes of every file; "nothing to draw" when a file has none. */
static int sp_gantt_build(const sp_selection_t *sels, int nfiles, sp_chart_lanes_t *l,
                          sp_gantt_timing_t *tm) {
  double t = sp_now();
  int rc = 0;
  for (int f = 0; rc == 0 && f < nfiles; f++) {
    rc = sp_chart_lanes_build(&sels[f], &l[f]);
    if (rc == 0 && !l[f].any) {
      sp_msg(SP_QUIET,
             "%s: nothing to draw: the selected regions have no intervals (empty, or "
             "recorded with time_trace off); --summary still shows call counts",
             sels[f].file);
      rc = SP_EXIT_DATA;
    }
  }
  tm->extent_s = sp_now() - t;
  tm->read_s = tm->extent_s;
  return rc;
}

/* The legend in the lanes' order (call-tree order of the regions, kept
 * from building the lanes), not the selection's (first start). */
static int sp_gantt_legend(const sp_selection_t *sel) {
  int n = sel->nregions > 0 ? sel->nregions : 1;
  int *pos = malloc((size_t)n * sizeof *pos), *depth = malloc((size_t)n * sizeof *depth);
  int *order = malloc((size_t)n * sizeof *order);
  int rc = pos && depth && order ? sp_tree_region_order(sel, pos, depth) : SP_EXIT_IO;
  for (int g = 0; rc == 0 && g < sel->nregions; g++) order[pos[g]] = g;
  if (rc == 0) sp_plot_region_legend_in(sel, order);
  free(pos);
  free(depth);
  free(order);
  return rc;
}

/* One panel: its frame, lanes and legend, in the page's band [y0, y1]. */
static int sp_gantt_panel(const sp_selection_t *sel, const sp_chart_lanes_t *l, const char *label,
                          const sp_options_t *o, int height, double y0, double y1,
                          const sp_gantt_mem_t *mem, sp_gantt_timing_t *tm) {
  sp_frame_t f;
  int rc = sp_gantt_geometry(o, l, height, y0, y1, mem, &f);
  if (rc) return rc;
  sp_bins_t b;
  if (sp_bins_init(&b, f.ncols, sp_gantt_stamp(l->t0, f.x0), sp_gantt_stamp(l->t0, f.x1)) < 0) {
    sp_bins_free(&b);
    return SP_EXIT_IO;
  }
  sp_plot_region_colours(sel, o);
  sp_gantt_frame(sel, l, &f, label);
  rc = sp_gantt_lanes(sel, l, &f, &b, tm);
  if (rc == 0) rc = sp_gantt_legend(sel);
  if (rc == 0 && mem->n)
    sp_gantt_mem_draw(mem, sel, f.vp[0], f.vp[1], f.track[0], f.track[1], f.x0, f.x1, l->t0);
  sp_bins_free(&b);
  return rc;
}

/* The chart of one file, or one panel per file stacked (labels given). */
static int sp_gantt_draw(const sp_selection_t *sels, const char *const *labels, int nfiles,
                         const sp_options_t *o, const char *path, int interactive,
                         sp_gantt_timing_t *tm) {
  sp_chart_lanes_t *l = calloc((size_t)nfiles, sizeof *l);
  sp_gantt_mem_t *mem = calloc((size_t)nfiles, sizeof *mem);
  int *natural = calloc((size_t)nfiles, sizeof *natural);
  double *band = malloc(2 * (size_t)nfiles * sizeof *band);
  int rc = l && mem && natural && band ? sp_gantt_build(sels, nfiles, l, tm) : SP_EXIT_IO;
  int ncolors = 1;
  for (int f = 0; rc == 0 && f < nfiles; f++) rc = sp_gantt_mem_load(&sels[f], &mem[f]);
  for (int f = 0; rc == 0 && f < nfiles; f++) {
    natural[f] = sp_gantt_natural(l[f].n, mem[f].n);
    if (sels[f].nregions > ncolors) ncolors = sels[f].nregions;
  }
  double start = sp_now();
  /* A plot area above the margins in every panel. */
  int margins = 2 * (int)(SP_VP_BOTTOM_PX + SP_VP_TOP_PX);
  int height = rc == 0 ? sp_chart_panels(o, natural, nfiles, margins, margins, band) : 0;
  if (rc == 0)
    rc = sp_plot_open(sp_plot_device(o->format, interactive), path, o->width, height, ncolors, 1);
  if (rc == 0) {
    pladv(0);
    for (int f = 0; rc == 0 && f < nfiles; f++)
      rc = sp_gantt_panel(&sels[f], &l[f], nfiles > 1 ? labels[f] : NULL, o, height, band[2 * f],
                          band[2 * f + 1], &mem[f], tm);
    int rc2 = sp_plot_close();
    if (rc == 0) rc = rc2;
  }
  for (int f = 0; l && f < nfiles; f++) sp_chart_lanes_free(&l[f]);
  for (int f = 0; mem && f < nfiles; f++) sp_gantt_mem_free(&mem[f]);
  free(l);
  free(mem);
  free(natural);
  free(band);
  /* Lane loading happened inside the drawing loop: count it as reading. */
  tm->render_s = (sp_now() - start) - (tm->read_s - tm->extent_s);
  return rc;
}

typedef struct sp_gantt_job {
  const sp_selection_t *sels;
  const char *const *labels;
  int nfiles;
  const sp_options_t *o;
  int interactive;
  sp_gantt_timing_t *tm;
} sp_gantt_job_t;

static int sp_gantt_job_draw(void *ctx, const char *path) {
  sp_gantt_job_t *j = ctx;
  return sp_gantt_draw(j->sels, j->labels, j->nfiles, j->o, path, j->interactive, j->tm);
}

int sp_gantt_render_files(const sp_selection_t *sels, const char *const *labels, int nfiles,
                          const sp_options_t *o, int interactive, sp_gantt_timing_t *tm) {
  memset(tm, 0, sizeof *tm);
  sp_gantt_job_t job = {sels, labels, nfiles, o, interactive, tm};
  if (interactive) return sp_gantt_job_draw(&job, NULL);
  return sp_chart_write(o, "gantt_plot", sp_gantt_job_draw, &job);
}

int sp_gantt_render_timed(const sp_selection_t *sel, const sp_options_t *o, int interactive,
                          sp_gantt_timing_t *tm) {
  return sp_gantt_render_files(sel, NULL, 1, o, interactive, tm);
}
