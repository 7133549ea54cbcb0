/* chart_scale.c - log axes where values span decades, labels at line ends
 * (chart_scale.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_scale.h"

int sp_axis_log_wanted(const double *v, int n, double *lo, double *hi) {
  *lo = *hi = 0;
  for (int i = 0; i < n; i++) {
    if (!(v[i] > 0) || !isfinite(v[i])) continue;
    if (*lo == 0 || v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
  return *lo > 0 && *hi / *lo > SP_LOG_SPAN;
}

typedef struct sp_label {
  double y;
  int i;
} sp_label_t;

static int sp_label_cmp(const void *a, const void *b) {
  const sp_label_t *x = a, *y = b;
  return (x->y > y->y) - (x->y < y->y);
}

void sp_line_labels(int n, const double *x, const double *y, const char *const *text,
                    const int *colour, double ylo, double yhi) {
  sp_label_t *l = malloc((size_t)(n > 0 ? n : 1) * sizeof *l);
  if (!l) return;
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(x[i]) && isfinite(y[i])) l[m++] = (sp_label_t){y[i], i};
  qsort(l, (size_t)m, sizeof *l, sp_label_cmp);
  /* One text line apart, pushed up from the lowest, then down from the top
   * so the highest stays inside the window. */
  double gap = 0.045 * (yhi - ylo);
  for (int k = 1; k < m; k++)
    if (l[k].y < l[k - 1].y + gap) l[k].y = l[k - 1].y + gap;
  if (m && l[m - 1].y > yhi - 0.5 * gap) l[m - 1].y = yhi - 0.5 * gap;
  for (int k = m - 2; k >= 0; k--)
    if (l[k].y > l[k + 1].y - gap) l[k].y = l[k + 1].y - gap;
  PLFLT xmin, xmax, ymin, ymax;
  plgvpw(&xmin, &xmax, &ymin, &ymax);
  double dx = 0.01 * (xmax - xmin);
  plschr(2.6, 1.0);
  for (int k = 0; k < m; k++) {
    char t[24];
    snprintf(t, sizeof t, "%.18s", text[l[k].i]);
    plcol0(colour[l[k].i]);
    plptex(x[l[k].i] + dx, l[k].y, 1.0, 0.0, 0.0, t);
  }
  free(l);
}

double sp_seconds_unit(double max_s, const char **unit) {
  static const char *const names[] = {"s", "ms", "us", "ns"};
  double factor = 1.0;
  int k = 0;
  while (k < 3 && max_s * factor < 1.0) {
    factor *= 1e3;
    k++;
  }
  *unit = names[k];
  return factor;
}
