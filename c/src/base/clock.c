/* clock.c - the stamps' clock and its conversion to CLOCK_MONOTONIC ns.
 *
 * The hot path reads the TSC (rdtsc, cheaper than a vDSO clock_gettime: see
 * docs/design.md, "Clock") when it is invariant (constant_tsc and
 * nonstop_tsc), else CLOCK_MONOTONIC directly. TSC ticks are converted to CLOCK_MONOTONIC
 * ns only when written: piecewise-linear between calibration points, each a
 * (ticks, ns) pair read back to back at setup, at flushes (at most one per
 * second) and at finalize. Piecewise-linear keeps the conversion continuous
 * and monotonic, so stamps converted at different times never reorder, and
 * it follows the NTP slewing of CLOCK_MONOTONIC between points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sp_internal.h"

int64_t sp__monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t sp_clock_now_ns(void) { return sp__monotonic_ns(); }

const char *sp_clock_name(void) { return sp__state.clock_tsc ? "tsc" : "monotonic"; }

/* 1 if /proc/cpuinfo lists both flags that make the TSC a usable clock:
 * constant rate across frequency changes and ticking in deep C-states. */
static int sp_cpuinfo_has_invariant_tsc(void) {
#if defined(__x86_64__) || defined(__i386__)
  FILE *f = fopen("/proc/cpuinfo", "re");
  if (!f) return 0;
  char line[8192];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5) != 0) continue;
    found = strstr(line, " constant_tsc") != NULL && strstr(line, " nonstop_tsc") != NULL;
    break;
  }
  fclose(f);
  return found;
#else
  return 0;
#endif
}

int sp__clock_detect_tsc(int choice) {
  if (choice == 2) return 0;
  int invariant = sp_cpuinfo_has_invariant_tsc();
  if (choice == 1 && !invariant)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "SCOPE_PROFILER_CLOCK=tsc ignored: this CPU has no invariant TSC");
  return invariant;
}

void sp__calib_reset(sp_calib_t *c) {
  free(c->pts);
  c->pts = NULL;
  c->n = c->cap = 0;
}

int sp__calib_push(sp_calib_t *c, sp_calib_point_t p) {
  if (c->n > 0) {
    const sp_calib_point_t *last = &c->pts[c->n - 1];
    /* Keep both coordinates strictly increasing, so every segment has a
     * positive slope; a point that does not is simply not needed. */
    if (p.ticks <= last->ticks || p.ns <= last->ns) return 0;
  }
  if (c->n == c->cap) {
    int64_t ncap = c->cap ? c->cap * 2 : 16;
    sp_calib_point_t *np = realloc(c->pts, (size_t)ncap * sizeof *np);
    if (!np) return SP_ENOMEM;
    c->pts = np;
    c->cap = ncap;
  }
  c->pts[c->n++] = p;
  return 0;
}

/* Reads ticks and ns as close together as possible: the ns read is framed
 * by two tick reads and the tightest of a few tries is kept. */
int sp__calib_add_now(sp_calib_t *c, int tsc, sp_calib_point_t *out) {
  sp_calib_point_t best = {0, 0};
  if (!tsc) {
    return 0; /* ticks are already ns: no conversion needed */
  }
#if defined(__x86_64__) || defined(__i386__)
  int64_t best_width = INT64_MAX;
  for (int i = 0; i < 5; i++) {
    int64_t t0 = (int64_t)__builtin_ia32_rdtsc();
    int64_t ns = sp__monotonic_ns();
    int64_t t1 = (int64_t)__builtin_ia32_rdtsc();
    if (t1 - t0 < best_width) {
      best_width = t1 - t0;
      best.ticks = t0 + (t1 - t0) / 2;
      best.ns = ns;
    }
  }
#endif
  if (out) *out = best;
  return sp__calib_push(c, best);
}

/* b - a, exact where it fits in int64 (every real stamp), else as double:
 * stamps read back from a damaged spill file may be anything. */
static inline double sp_diff(int64_t b, int64_t a) {
  int64_t d;
  return __builtin_sub_overflow(b, a, &d) ? (double)b - (double)a : (double)d;
}

static double sp_segment_slope(const sp_calib_point_t *a, const sp_calib_point_t *b) {
  return sp_diff(b->ns, a->ns) / sp_diff(b->ticks, a->ticks);
}

/* Saturates at the int64 limits instead of overflowing (damaged stamps). */
static inline int64_t sp_along(const sp_calib_point_t *p, double slope, int64_t ticks) {
  double d = sp_diff(ticks, p->ticks) * slope;
  if (!(d < 9.2e18)) return INT64_MAX; /* also NaN */
  if (d < -9.2e18) return INT64_MIN;
  int64_t di = (int64_t)d;
  if ((double)di > d) di--; /* floor, so the map never decreases */
  int64_t ns;
  if (__builtin_add_overflow(p->ns, di, &ns)) return di > 0 ? INT64_MAX : INT64_MIN;
  return ns;
}

/* The piece of the map that covers ticks in [lo, hi): base point and slope. */
typedef struct sp_calib_seg {
  int64_t lo, hi;
  const sp_calib_point_t *base;
  double slope;
} sp_calib_seg_t;

/* Needs c->n >= 2. */
static void sp_seg_find(const sp_calib_t *c, int64_t ticks, int64_t *cursor, sp_calib_seg_t *s) {
  const sp_calib_point_t *p = c->pts;
  const int64_t last = c->n - 1;
  /* Outside the points: the slope over the whole span, which is the most
   * accurate estimate of the TSC rate. */
  if (ticks < p[0].ticks || ticks >= p[last].ticks) {
    s->slope = sp_segment_slope(&p[0], &p[last]);
    int before = ticks < p[0].ticks;
    s->base = before ? &p[0] : &p[last];
    s->lo = before ? INT64_MIN : p[last].ticks;
    s->hi = before ? p[0].ticks : INT64_MAX;
    return;
  }
  int64_t i = *cursor;
  if (i < 0 || i >= last) i = 0;
  while (i > 0 && ticks < p[i].ticks) i--;
  while (i < last - 1 && ticks >= p[i + 1].ticks) i++;
  *cursor = i;
  s->base = &p[i];
  s->slope = sp_segment_slope(&p[i], &p[i + 1]);
  s->lo = p[i].ticks;
  s->hi = p[i + 1].ticks;
}

/* One stamp; *cursor speeds up sorted input (start it at 0). Identity when
 * c has no points. */
static int64_t sp_calib_convert(const sp_calib_t *c, int64_t ticks, int64_t *cursor) {
  if (c->n == 0) return ticks;
  if (c->n == 1) return c->pts[0].ns; /* cannot happen after setup+finalize points */
  sp_calib_seg_t s;
  sp_seg_find(c, ticks, cursor, &s);
  return sp_along(s.base, s.slope, ticks);
}

void sp__calib_convert_events(const sp_calib_t *c, const sp_event_t *ev, int64_t n, int64_t *start,
                              int64_t *end, int64_t *cursor) {
  if (c->n < 2) {
    for (int64_t j = 0; j < n; j++) {
      start[j] = sp_calib_convert(c, ev[j].start, cursor);
      end[j] = sp_calib_convert(c, ev[j].end, cursor);
    }
    return;
  }
  /* Nearly all stamps of a buffer fall in one segment: look it up (and
   * divide for its slope) only when a stamp leaves it. A division per
   * stamp was half of finalize's raw-data time. */
  sp_calib_seg_t s = {.lo = 1, .hi = 0};
  for (int64_t j = 0; j < n; j++) {
    int64_t t = ev[j].start;
    if (t < s.lo || t >= s.hi) sp_seg_find(c, t, cursor, &s);
    start[j] = sp_along(s.base, s.slope, t);
    t = ev[j].end;
    if (t < s.lo || t >= s.hi) sp_seg_find(c, t, cursor, &s);
    end[j] = sp_along(s.base, s.slope, t);
  }
}
