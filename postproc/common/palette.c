/* palette.c - named colour maps sampled evenly over the sorted region names.
 *
 * Qualitative maps (tab10, tab20, Set3) are lists: sample x in [0, 1] picks
 * entry min(K - 1, floor(x * K)), as matplotlib's ListedColormap does.
 * Sequential maps (viridis, plasma) are interpolated linearly between
 * 11 anchors taken at x = 0, 0.1, ..., 1 of matplotlib's tables.
 * "many" (the default past 20 regions) is qualitative for any count: the
 * k-th sorted name gets the k-th colour of a farthest-first walk over a
 * grid of hues and lightness levels, so every colour differs from those
 * before it as much as the grid allows, neighbours in the legend included
 * (a sequential map sampled over 30 names makes neighbours alike). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "palette.h"

typedef struct sp_cmap {
  const char *name;
  int listed;          /* 1: pick entries; 0: interpolate anchors */
  int n;               /* entries */
  const unsigned *rgb; /* 0xrrggbb */
} sp_cmap_t;

static const unsigned sp_tab10[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                    0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
static const unsigned sp_tab20[] = {0x1f77b4, 0xaec7e8, 0xff7f0e, 0xffbb78, 0x2ca02c,
                                    0x98df8a, 0xd62728, 0xff9896, 0x9467bd, 0xc5b0d5,
                                    0x8c564b, 0xc49c94, 0xe377c2, 0xf7b6d2, 0x7f7f7f,
                                    0xc7c7c7, 0xbcbd22, 0xdbdb8d, 0x17becf, 0x9edae5};
static const unsigned sp_set3[] = {0x8dd3c7, 0xffffb3, 0xbebada, 0xfb8072, 0x80b1d3, 0xfdb462,
                                   0xb3de69, 0xfccde5, 0xd9d9d9, 0xbc80bd, 0xccebc5, 0xffed6f};
static const unsigned sp_viridis[] = {0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
                                      0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};
static const unsigned sp_plasma[] = {0x0d0887, 0x41049d, 0x6a00a8, 0x8f0da4, 0xb12a90, 0xcc4778,
                                     0xe16462, 0xf2844b, 0xfca636, 0xfcce25, 0xf0f921};

static const sp_cmap_t sp_cmaps[] = {{"tab10", 1, 10, sp_tab10},
                                     {"tab20", 1, 20, sp_tab20},
                                     {"viridis", 0, 11, sp_viridis},
                                     {"plasma", 0, 11, sp_plasma},
                                     {"Set3", 1, 12, sp_set3}};
#define SP_NCMAPS ((int)(sizeof sp_cmaps / sizeof sp_cmaps[0]))

static const sp_cmap_t *sp_cmap_find(const char *name) {
  for (int i = 0; name && i < SP_NCMAPS; i++)
    if (strcmp(name, sp_cmaps[i].name) == 0) return &sp_cmaps[i];
  return NULL;
}

int sp_palette_known(const char *name) {
  return sp_cmap_find(name) != NULL || (name && !strcmp(name, "many"));
}

const char *sp_palette_names(void) { return "tab10, tab20, viridis, plasma, Set3, many"; }

static void sp_cmap_sample(const sp_cmap_t *m, double x, unsigned char *rgb) {
  if (x < 0) x = 0;
  if (x > 1) x = 1;
  if (m->listed) {
    int k = (int)(x * m->n);
    unsigned c = m->rgb[k < m->n ? k : m->n - 1];
    rgb[0] = (unsigned char)(c >> 16);
    rgb[1] = (unsigned char)(c >> 8);
    rgb[2] = (unsigned char)c;
    return;
  }
  double pos = x * (m->n - 1);
  int k = (int)pos;
  if (k >= m->n - 1) k = m->n - 2;
  double f = pos - k;
  for (int ch = 0; ch < 3; ch++) {
    int shift = 16 - 8 * ch;
    double a = (m->rgb[k] >> shift) & 0xff, b = (m->rgb[k + 1] >> shift) & 0xff;
    rgb[ch] = (unsigned char)(a + (b - a) * f + 0.5);
  }
}

static double sp_hue_channel(double h, double s, double v, int ch) {
  /* HSV to one channel, h in [0, 1) */
  double k = fmod((ch == 0 ? 5.0 : ch == 1 ? 3.0 : 1.0) + 6.0 * h, 6.0);
  double m = fmin(fmin(k, 4.0 - k), 1.0);
  return v - v * s * (m > 0 ? m : 0);
}

/* The "many" map: nd colours picked one after another from a grid of hues
 * and lightness levels, each the candidate farthest (weighted RGB) from
 * all picked before; past the grid's size the picks repeat. */
#define SP_MANY_HUES 36
#define SP_MANY_LEVELS 4
#define SP_MANY_CAND (SP_MANY_HUES * SP_MANY_LEVELS)

static void sp_many_colours(int nd, unsigned char *out) {
  static const double sat[SP_MANY_LEVELS] = {0.85, 0.55, 0.95, 0.45};
  static const double val[SP_MANY_LEVELS] = {0.90, 0.65, 0.55, 0.98};
  unsigned char cand[SP_MANY_CAND][3];
  double near[SP_MANY_CAND];
  for (int c = 0; c < SP_MANY_CAND; c++) {
    double h = (double)(c % SP_MANY_HUES) / SP_MANY_HUES;
    for (int ch = 0; ch < 3; ch++)
      cand[c][ch] = (unsigned char)(255.0 * sp_hue_channel(h, sat[c / SP_MANY_HUES],
                                                           val[c / SP_MANY_HUES], ch) + 0.5);
    near[c] = 1e30;
  }
  int pick = (int)(0.58 * SP_MANY_HUES); /* the first: a clear blue */
  for (int k = 0; k < nd; k++) {
    if (k % SP_MANY_CAND == 0 && k)
      for (int c = 0; c < SP_MANY_CAND; c++) near[c] = 1e30; /* the grid is used up: again */
    if (k % SP_MANY_CAND) {
      pick = 0;
      for (int c = 1; c < SP_MANY_CAND; c++)
        if (near[c] > near[pick]) pick = c;
    }
    memcpy(out + 3 * k, cand[pick], 3);
    for (int c = 0; c < SP_MANY_CAND; c++) {
      double dr = cand[c][0] - cand[pick][0], dg = cand[c][1] - cand[pick][1],
             db = cand[c][2] - cand[pick][2];
      double d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
      if (d < near[c]) near[c] = d;
    }
  }
}

static int sp_cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Index of name among the distinct sorted names (binary search). */
static int sp_rank_of(const char *const *sorted, int nd, const char *name) {
  int lo = 0, hi = nd - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (strcmp(sorted[mid], name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int sp_palette_assign(const char *cmap, const char *const *names, int n, unsigned char *rgb) {
  const char **sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
  if (!sorted) {
    for (int i = 0; i < n; i++)
      sp_cmap_sample(&sp_cmaps[0], n > 1 ? (double)i / (n - 1) : 0, rgb + 3 * i);
    return -1;
  }
  memcpy(sorted, names, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, sp_cmp_name);
  int nd = 0;
  for (int i = 0; i < n; i++)
    if (nd == 0 || strcmp(sorted[nd - 1], sorted[i]) != 0) sorted[nd++] = sorted[i];
  const sp_cmap_t *m = sp_cmap_find(cmap);
  int many = cmap ? !strcmp(cmap, "many") : nd > 20;
  if (!m) m = sp_cmap_find(nd <= 10 ? "tab10" : "tab20");
  unsigned char *mc = many ? malloc(3 * (size_t)(nd > 0 ? nd : 1)) : NULL;
  if (mc) sp_many_colours(nd, mc);
  for (int i = 0; i < n; i++) {
    int k = sp_rank_of(sorted, nd, names[i]);
    if (mc)
      memcpy(rgb + 3 * i, mc + 3 * k, 3);
    else
      sp_cmap_sample(m, nd > 1 ? (double)k / (nd - 1) : 0.0, rgb + 3 * i);
  }
  free(mc);
  free(sorted);
  return 0;
}

int sp_palette_for(const char *cmap, const char *const *domain, int ndomain,
                   const char *const *names, int n, unsigned char *rgb) {
  size_t all = (size_t)ndomain + (size_t)n;
  const char **v = malloc((all ? all : 1) * sizeof *v);
  unsigned char *c = malloc((all ? all : 1) * 3);
  int rc = v && c ? 0 : -1;
  if (rc == 0) {
    if (ndomain) memcpy(v, domain, (size_t)ndomain * sizeof *v);
    if (n) memcpy(v + ndomain, names, (size_t)n * sizeof *v);
    rc = sp_palette_assign(cmap, v, (int)all, c);
    memcpy(rgb, c + 3 * (size_t)ndomain, 3 * (size_t)n);
  }
  free(v);
  free(c);
  return rc;
}

void sp_palette_hex(const unsigned char *rgb, char out[8]) {
  snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}
