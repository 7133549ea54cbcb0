/* gantt.c - the Gantt chart: one lane per (region, rank), a bar per interval.
 *
 * Two passes over the selected lanes, each holding one lane in memory:
 * the first finds the exact time span (ends are not sorted when calls
 * nest), the second loads each lane, merges its intervals per pixel column
 * and draws one rectangle per run of covered columns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <plplot.h>

#include "gantt.h"
#include "gantt_bins.h"
#include "output_file.h"
#include "plot_device.h"

/* Bytes of the output file's path, NUL included. */
#define SP_PATH_MAX 4096

/* Labels closer than this (in pixels) would overlap: see --help. */
#define SP_LABEL_PX 12.0
/* Legend entries before "+N more". */
#define SP_LEGEND_MAX 40
/* Plot area in normalized page coordinates (room for labels and legend). */
#define SP_VP_LEFT 0.17
#define SP_VP_RIGHT 0.84
#define SP_VP_BOTTOM_PX 60.0
#define SP_VP_TOP_PX 50.0

typedef struct sp_frame {
  int width, height; /* page, pixels */
  double vp[4];      /* viewport: xmin, xmax, ymin, ymax (normalized) */
  double tmax;       /* seconds from t0 to the last end */
  int ncols;         /* pixel columns of the plot area */
} sp_frame_t;

/* Distinct colours, first the tab10 set then lighter ones; beyond them hues
 * are spread by the golden angle. */
static void sp_region_colour(int i, int *r, int *g, int *b) {
  static const unsigned char pal[20][3] = {
      {31, 119, 180}, {255, 127, 14}, {44, 160, 44},   {214, 39, 40},   {148, 103, 189},
      {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34},  {23, 190, 207},
      {174, 199, 232}, {255, 187, 120}, {152, 223, 138}, {255, 152, 150}, {197, 176, 213},
      {196, 156, 148}, {247, 182, 210}, {199, 199, 199}, {219, 219, 141}, {158, 218, 229}};
  if (i < 20) {
    *r = pal[i][0];
    *g = pal[i][1];
    *b = pal[i][2];
    return;
  }
  PLFLT fr, fg, fb;
  double hue = (double)((i * 137) % 360);
  plhlsrgb(hue, 0.5 + 0.15 * (i % 2), 0.65, &fr, &fg, &fb);
  *r = (int)(fr * 255);
  *g = (int)(fg * 255);
  *b = (int)(fb * 255);
}

/* Pass 1: exact first start and last end over the selected lanes. */
static int sp_gantt_extent(const sp_selection_t *sel, int64_t *t0, int64_t *t1) {
  *t0 = INT64_MAX;
  *t1 = INT64_MIN;
  int any = 0; /* INT64_MAX is a valid start: no sentinel */
  for (int i = 0; i < sel->nlanes; i++) {
    int64_t a, b;
    sp_progress("scanning lane", i, sel->nlanes);
    int err = sp_reader_extent(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &a, &b);
    if (err < 0) {
      sp_progress_done();
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader(err);
    }
    sp_reader_info_t info;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    if (info.num_intervals == 0) continue; /* a and b are INT64_MAX, INT64_MIN */
    any = 1;
    if (a < *t0) *t0 = a;
    if (b > *t1) *t1 = b;
  }
  sp_progress_done();
  if (!any) {
    sp_msg(SP_QUIET, "%s: nothing to draw: the selected regions have no intervals (empty, or "
                     "recorded with time_trace off); --summary still shows call counts",
           sel->file);
    return SP_EXIT_DATA;
  }
  return 0;
}

/* Lane labels, thinned so they stay SP_LABEL_PX apart: a region's first
 * lane shows "REGION rN", then every step-th lane of the region "rN",
 * skipping those too close to the next region's first label. */
static void sp_gantt_labels(const sp_selection_t *sel, const sp_frame_t *f) {
  double plot_px = (f->vp[3] - f->vp[2]) * f->height;
  double lane_px = plot_px / sel->nlanes;
  int step = lane_px >= SP_LABEL_PX ? 1 : (int)(SP_LABEL_PX / lane_px) + 1;
  double last_y = -1e9;
  char text[256], name[160];
  plcol0(SP_COL_FG);
  int block = 0, block_len = 0;
  for (int i = 0; i < sel->nlanes; i++) {
    if (i == 0 || sel->lanes[i].region != sel->lanes[i - 1].region) {
      block = i;
      for (block_len = 1; i + block_len < sel->nlanes &&
                          sel->lanes[i + block_len].region == sel->lanes[i].region;)
        block_len++;
    }
    int j = i - block;
    double y = (i + 0.5) * lane_px;
    if (y - last_y < SP_LABEL_PX) continue;
    if (j > 0 && (j % step != 0 || block_len - j < step)) continue;
    int rank = sp_reader_rank_id(sel->reader, sel->lanes[i].rank);
    const char *host_raw = sp_rank_host_shown(sel, sel->lanes[i].rank);
    char host[80] = "";
    if (host_raw) {
      host[0] = '@';
      sp_plot_text(host_raw, host + 1, sizeof host - 1, 16);
    }
    if (j == 0 || step == 1) {
      sp_plot_text(sp_reader_region_name(sel->reader, sel->lanes[i].region), name, sizeof name, 24);
      snprintf(text, sizeof text, "%s r%d%s", name, rank, host);
    } else {
      snprintf(text, sizeof text, "r%d%s", rank, host);
    }
    plmtex("lv", 0.5, 1.0 - (i + 0.5) / sel->nlanes, 1.0, text);
    last_y = y;
  }
}

/* Box, axis, title, region separators and labels. */
static void sp_gantt_frame(const sp_selection_t *sel, const sp_frame_t *f) {
  char title[512], base[400];
  pladv(0);
  plschr(3.0, 1.0);
  plvpor(f->vp[0], f->vp[1], f->vp[2], f->vp[3]);
  plwind(0.0, f->tmax, 0.0, sel->nlanes);
  plcol0(SP_COL_GRID);
  for (int i = 1; i < sel->nlanes; i++)
    if (sel->lanes[i].region != sel->lanes[i - 1].region)
      pljoin(0.0, sel->nlanes - i, f->tmax, sel->nlanes - i);
  plcol0(SP_COL_FG);
  plbox("bcnst", 0.0, 0, "bc", 0.0, 0);
  const char *slash = strrchr(sel->file, '/');
  sp_plot_text(slash ? slash + 1 : sel->file, base, sizeof base, 80);
  snprintf(title, sizeof title, "scope-profiler: %s", base);
  plschr(3.6, 1.0);
  plmtex("t", 1.5, 0.5, 0.5, title);
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5, "time since first start [s]");
  sp_gantt_labels(sel, f);
}

static void sp_gantt_lane_draw(const sp_frame_t *f, const sp_bins_t *b, int lane, int nlanes,
                               int colour) {
  double lane_px = (f->vp[3] - f->vp[2]) * f->height / nlanes;
  double pad = lane_px >= 4.0 ? 0.12 : 0.0; /* gaps only when lanes are visible apart */
  PLFLT y0 = nlanes - lane - 1 + pad, y1 = nlanes - lane - pad;
  double w = f->tmax / f->ncols;
  plcol0(colour);
  for (int k = 0; k < b->nruns; k++) {
    PLFLT x0 = b->runs[2 * k] * w, x1 = (b->runs[2 * k + 1] + 1) * w;
    PLFLT x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
    plfill(4, x, y);
  }
}

/* Legend at the right, outside the plot: one coloured box per region. */
static void sp_gantt_legend(const sp_selection_t *sel) {
  int n = sel->nregions < SP_LEGEND_MAX ? sel->nregions : SP_LEGEND_MAX;
  int extra = sel->nregions > n;
  int m = n + extra;
  PLINT *opt = calloc((size_t)m, sizeof *opt), *colours = calloc((size_t)m, sizeof *colours);
  PLINT *patterns = calloc((size_t)m, sizeof *patterns);
  PLFLT *scales = calloc((size_t)m, sizeof *scales), *widths = calloc((size_t)m, sizeof *widths);
  char **texts = calloc((size_t)m, sizeof *texts);
  char *store = calloc((size_t)m, 128);
  if (opt && colours && patterns && scales && widths && texts && store) {
    for (int i = 0; i < m; i++) {
      texts[i] = store + 128 * i;
      colours[i] = SP_COL_REGION0 + i;
      scales[i] = 0.8;
      widths[i] = 1.0;
      opt[i] = PL_LEGEND_COLOR_BOX;
      if (i < n) {
        sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[i]), texts[i], 128, 24);
      } else {
        opt[i] = PL_LEGEND_NONE;
        snprintf(texts[i], 128, "+%d more", sel->nregions - n);
      }
    }
    PLFLT lw, lh;
    PLINT fg[SP_LEGEND_MAX + 1];
    for (int i = 0; i < m; i++) fg[i] = SP_COL_FG;
    plschr(3.0, 1.0);
    pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.05,
             SP_COL_BG, SP_COL_FG, 1, 0, 0, m, opt, 0.8, 0.9, 1.6, 0.0, fg,
             (PLCHAR_MATRIX)texts, colours, patterns, scales, widths, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL);
  }
  free(opt);
  free(colours);
  free(patterns);
  free(scales);
  free(widths);
  free(texts);
  free(store);
}

/* Pass 2: load, bin and draw every lane. */
static int sp_gantt_lanes(const sp_selection_t *sel, const sp_frame_t *f, sp_bins_t *b,
                          sp_gantt_timing_t *tm) {
  int gi = 0;
  for (int i = 0; i < sel->nlanes; i++) {
    sp_reader_intervals_t iv;
    sp_progress("drawing lane", i, sel->nlanes);
    double t = sp_now();
    int err = sp_reader_load(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &iv);
    tm->read_s += sp_now() - t;
    if (err < 0) {
      sp_progress_done();
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader(err);
    }
    while (sel->regions[gi] != sel->lanes[i].region) gi++;
    t = sp_now();
    sp_bins_reset(b);
    sp_bins_add(b, iv.start, iv.end, iv.n);
    sp_bins_runs(b);
    tm->bin_s += sp_now() - t;
    tm->intervals += iv.n;
    tm->runs += b->nruns;
    sp_reader_intervals_free(&iv);
    sp_gantt_lane_draw(f, b, i, sel->nlanes, SP_COL_REGION0 + gi);
  }
  sp_progress_done();
  return 0;
}

/* mkdir -p dir; dir is not empty and shorter than SP_PATH_MAX (checked). */
static int sp_mkdirs(const char *dir) {
  char path[SP_PATH_MAX];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1;; p++) {
    char c = *p;
    if (c != '/' && c != '\0') continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    *p = c;
    if (c == '\0') break;
  }
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int sp_gantt_draw(const sp_selection_t *sel, const sp_options_t *o, const char *path,
                         int interactive, sp_gantt_timing_t *tm) {
  int64_t t0, t1;
  double t = sp_now();
  int rc = sp_gantt_extent(sel, &t0, &t1);
  tm->extent_s = sp_now() - t;
  tm->read_s = tm->extent_s;
  if (rc) return rc;
  double start = sp_now();
  sp_frame_t f;
  f.width = o->width;
  f.height = o->height;
  if (f.height == 0) {
    f.height = 120 + 16 * sel->nlanes;
    f.height = f.height < 480 ? 480 : f.height > 2400 ? 2400 : f.height;
  }
  f.vp[0] = SP_VP_LEFT;
  f.vp[1] = SP_VP_RIGHT;
  f.vp[2] = SP_VP_BOTTOM_PX / f.height;
  f.vp[3] = 1.0 - SP_VP_TOP_PX / f.height;
  f.tmax = t1 > t0 ? 1e-9 * sp_ns_between(t0, t1) : 1e-9;
  f.ncols = (int)((f.vp[1] - f.vp[0]) * f.width);
  sp_bins_t b;
  /* t1 == t0 (every interval at one instant, maybe INT64_MAX): bins of
   * scale 0 put it in column 0; t0 + 1 could overflow. */
  if (sp_bins_init(&b, f.ncols, t0, t1 > t0 ? t1 : t0) < 0) {
    sp_bins_free(&b);
    return SP_EXIT_IO;
  }
  rc = sp_plot_open(sp_plot_device(o->format, interactive), path, f.width, f.height,
                    sel->nregions);
  if (rc == 0) {
    for (int i = 0; i < sel->nregions; i++) {
      int r, g, bl;
      sp_region_colour(i, &r, &g, &bl);
      plscol0(SP_COL_REGION0 + i, r, g, bl);
    }
    sp_gantt_frame(sel, &f);
    rc = sp_gantt_lanes(sel, &f, &b, tm);
    if (rc == 0) sp_gantt_legend(sel);
    int rc2 = sp_plot_close();
    if (rc == 0) rc = rc2;
  }
  sp_bins_free(&b);
  /* Lane loading happened inside the drawing loop: count it as reading. */
  tm->render_s = (sp_now() - start) - (tm->read_s - tm->extent_s);
  return rc;
}

int sp_gantt_render_timed(const sp_selection_t *sel, const sp_options_t *o, int interactive,
                          sp_gantt_timing_t *tm) {
  char path[SP_PATH_MAX];
  memset(tm, 0, sizeof *tm);
  if (!interactive) {
    /* Room for DIR, '/' and gantt_plot.EXT: a longer name would be cut. */
    if (strlen(o->outdir) + sizeof "/gantt_plot.svg" > sizeof path) {
      sp_msg(SP_QUIET, "output directory name too long (%zu bytes, at most %zu)",
             strlen(o->outdir), sizeof path - sizeof "/gantt_plot.svg");
      return SP_EXIT_IO;
    }
    if (sp_mkdirs(o->outdir) != 0) {
      sp_msg(SP_QUIET, "cannot create output directory %s: %s", o->outdir, strerror(errno));
      return SP_EXIT_IO;
    }
    /* DIR/gantt_plot.EXT without doubling the slash(es) DIR may end with. */
    size_t n = strlen(o->outdir);
    while (n > 1 && o->outdir[n - 1] == '/') n--;
    snprintf(path, sizeof path, "%.*s%sgantt_plot.%s", (int)n, o->outdir,
             o->outdir[n - 1] == '/' ? "" : "/", sp_plot_extension(o->format));
  }
  /* Drawn under a temporary name, renamed when complete (output_file.c). */
  char tmp[SP_PATH_MAX + 32];
  if (!interactive && sp_output_temp(path, tmp, sizeof tmp) != 0) {
    sp_msg(SP_QUIET, "cannot write %s: %s", path, strerror(errno));
    return SP_EXIT_IO;
  }
  int rc = sp_gantt_draw(sel, o, interactive ? NULL : tmp, interactive, tm);
  if (rc != 0 && !interactive) remove(tmp);
  if (rc == 0 && !interactive) rc = sp_output_commit(tmp, path, o->format);
  if (rc == 0 && !interactive) sp_msg(SP_NORMAL, "wrote %s", path);
  return rc;
}

int sp_gantt_render(const sp_selection_t *sel, const sp_options_t *o, int interactive) {
  sp_gantt_timing_t tm;
  int rc = sp_gantt_render_timed(sel, o, interactive, &tm);
  if (rc == 0)
    sp_msg(SP_VERBOSE, "%lld intervals drawn as %lld bars; read %.3f s, render %.3f s",
           (long long)tm.intervals, (long long)tm.runs, tm.read_s, tm.render_s);
  return rc;
}
