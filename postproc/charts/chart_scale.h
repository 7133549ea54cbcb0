/* chart_scale.h - axes that survive real data, and labels at line ends,
 * for the PLplot charts (chart_scale.c); never installed. */
#ifndef SP_CHART_SCALE_H
#define SP_CHART_SCALE_H

/* Values that span more than this factor get a log axis. */
#define SP_LOG_SPAN 100.0

/* 1 when the finite values above 0 among v[0..n-1] span more than
 * SP_LOG_SPAN (a linear axis would flatten the small ones); *lo and *hi get
 * their smallest and largest (both 0 when there is none). */
int sp_axis_log_wanted(const double *v, int n, double *lo, double *hi);

/* The unit in which seconds up to max_s read between 1 and 1000 ("s",
 * "ms", "us" or "ns", in *unit): a linear axis of values like 0.007 gets a
 * PLplot exponent label ("(x10^-3)") above the axis, outside the margin
 * of our charts and easy to miss. Returns the factor (1, 1e3, 1e6, 1e9). */
double sp_seconds_unit(double max_s, const char **unit);

/* Draws text[i] in colour-map-0 index colour[i] just right of the point
 * (x[i], y[i]) (world coordinates, the end of line i), moving labels apart
 * vertically so that none overlaps another; ylo..yhi: the window's y range.
 * Labels longer than 18 bytes are cut. n may be 0. */
void sp_line_labels(int n, const double *x, const double *y, const char *const *text,
                    const int *colour, double ylo, double yhi);

#endif
