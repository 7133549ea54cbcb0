/* reader_durations.c - the duration statistics of one (region, rank) pair,
 * for region_statistics.json and the summary, read beside the call tree.
 *
 * One pass that the compiler can vectorise (see SP_STAMP_LOOP): whether
 * starts decrease and ends rise strictly (for the tree's order and the
 * last call), whether an end lies below its start (the load's check, done
 * here instead of in a pass of its own), the durations' sum in 64-bit
 * integers, the squares of the durations minus the first one, k, in
 * doubles over SP_LANES lanes (the shifted-data variance: no cancellation
 * when the spread is small next to the mean) and the extremes. Exact while
 * every duration and k lie in [0, 2^50) ns (about 13 days): the durations
 * are ORed together, and a span of calls with a bit from 50 up is summed
 * again in doubles, one call at a time. The latest end is the last call's
 * when the ends rise strictly, else found by one more pass; the call
 * holding it (the first of equals) by a count and a short scan from the
 * end. */
#include <stdlib.h>
#include <string.h>

#include "reader_tree_internal.h"

enum { SP_LANES = 4, SP_SPAN = 1 << 12 }; /* 2^12 durations below 2^50 sum below 2^62 */
enum { SP_EXACT_BITS = 50 };

static const double sp_two52 = 4503599627370496.0; /* 2^52 */

/* x in [0, 2^52) as a double, by its bits (no int64 -> double instruction
 * before AVX-512). */
static inline double sp_small_to_double(int64_t x) {
  uint64_t u = (uint64_t)x | 0x4330000000000000ULL;
  double d;
  memcpy(&d, &u, sizeof d);
  return d - sp_two52;
}

/* The sums of one span; exact when no bit of `bits` from SP_EXACT_BITS up is set. */
typedef struct sp_span {
  int64_t s1;         /* sum of the durations x */
  uint64_t bits;      /* the durations ORed */
  int64_t mn, mx;     /* min and max of x */
  double s2;          /* sum of (x - k)^2 */
  int64_t down, flat; /* nonzero: a start below the one before; an end not above it */
  int64_t bad;        /* nonzero: an end below its start */
} sp_span_t;

/* Four lanes in one vector (GCC and Clang vector extensions): the lanes'
 * sums stay apart, which the compilers would not do for plain doubles. */
typedef double sp_v4d __attribute__((vector_size(4 * sizeof(double))));
typedef int64_t sp_v4i __attribute__((vector_size(4 * sizeof(int64_t))));
typedef uint64_t sp_v4u __attribute__((vector_size(4 * sizeof(uint64_t))));

SP_STAMP_LOOP static void sp_span_sums(const int64_t *st, const int64_t *en, int64_t n, int64_t k,
                                       sp_span_t *out) {
  const sp_v4u magic = {0x4330000000000000ULL, 0x4330000000000000ULL, 0x4330000000000000ULL,
                        0x4330000000000000ULL};
  const double dk = sp_small_to_double(k);
  const sp_v4d off = {sp_two52 + dk, sp_two52 + dk, sp_two52 + dk, sp_two52 + dk};
  sp_v4u s1 = {0, 0, 0, 0}, bits = s1;
  sp_v4d s2 = {0, 0, 0, 0};
  sp_v4i mn = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  sp_v4i mx = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
  sp_v4i down = {0, 0, 0, 0}, flat = down, bad = down;
  int64_t n4 = n - n % SP_LANES;
  for (int64_t i = 0; i < n4; i += SP_LANES) {
    sp_v4i a, b, pa, pb; /* pa, pb: the calls before (st[-1] exists: see sp__durations) */
    memcpy(&a, st + i, sizeof a);
    memcpy(&b, en + i, sizeof b);
    memcpy(&pa, st + i - 1, sizeof pa);
    memcpy(&pb, en + i - 1, sizeof pb);
    down |= a < pa;
    flat |= b <= pb;
    bad |= b < a;
    sp_v4u x = (sp_v4u)b - (sp_v4u)a; /* wraps: bits tells */
    bits |= x;
    s1 += x;
    sp_v4u u = x | magic;
    sp_v4d d;
    memcpy(&d, &u, sizeof d);
    d -= off; /* x - k, exact below 2^52 */
    s2 += d * d;
    sp_v4i xi = (sp_v4i)x, lt = xi<mn, gt = xi> mx;
    mn = (lt & xi) | (~lt & mn);
    mx = (gt & xi) | (~gt & mx);
  }
  sp_span_t r = {.mn = INT64_MAX, .mx = INT64_MIN};
  for (int l = 0; l < SP_LANES; l++) {
    r.down |= down[l];
    r.flat |= flat[l];
    r.bad |= bad[l];
    r.bits |= bits[l];
    r.s1 = (int64_t)((uint64_t)r.s1 + s1[l]);
    r.mn = mn[l] < r.mn ? mn[l] : r.mn;
    r.mx = mx[l] > r.mx ? mx[l] : r.mx;
  }
  r.s2 = (s2[0] + s2[1]) + (s2[2] + s2[3]);
  for (int64_t i = n4; i < n; i++) {
    uint64_t x = (uint64_t)en[i] - (uint64_t)st[i];
    double sh = sp_small_to_double((int64_t)x) - dk;
    r.bits |= x;
    r.s1 = (int64_t)((uint64_t)r.s1 + x);
    r.s2 += sh * sh;
    r.mn = (int64_t)x < r.mn ? (int64_t)x : r.mn;
    r.mx = (int64_t)x > r.mx ? (int64_t)x : r.mx;
    r.down |= st[i] < st[i - 1];
    r.flat |= en[i] <= en[i - 1];
    r.bad |= en[i] < st[i];
  }
  *out = r;
}

SP_STAMP_LOOP static int64_t sp_count_equal(const int64_t *v, int64_t n, int64_t x) {
  int64_t c = 0;
  for (int64_t i = 0; i < n; i++) c += v[i] == x;
  return c;
}

SP_STAMP_LOOP static int64_t sp_max(const int64_t *v, int64_t n) {
  int64_t m = INT64_MIN;
  for (int64_t i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
  return m;
}

/* A span outside the exact range, in doubles (the old way, one lane). */
static void sp_span_doubles(const int64_t *st, const int64_t *en, int64_t n, int64_t k, double *t1,
                            double *t2, int64_t *mn, int64_t *mx) {
  for (int64_t i = 0; i < n; i++) {
    int64_t x = sp_duration(st[i], en[i]);
    double sh = (double)x - (double)k;
    *t1 += sh;
    *t2 += sh * sh;
    *mn = x < *mn ? x : *mn;
    *mx = x > *mx ? x : *mx;
  }
}

unsigned sp__durations(const sp_reader_intervals_t *iv, sp_reader_durations_t *d) {
  memset(d, 0, sizeof *d);
  d->first_start = INT64_MAX;
  d->last_end = INT64_MIN;
  d->n = iv->n;
  if (iv->n == 0) return 0;
  const int64_t *st = iv->start, *en = iv->end;
  int down = 0, flat = 0, bad = en[0] < st[0];
  int64_t k = sp_duration(st[0], en[0]);
  double t1 = 0, t2 = 0;
  const uint64_t inexact = ~(uint64_t)0 << SP_EXACT_BITS;
  /* Call 0 (no call before it for the order checks) adds no difference
   * from itself: the spans start at call 1. */
  int64_t mn = k, mx = k;
  for (int64_t i0 = 1; i0 < iv->n; i0 += SP_SPAN) {
    int64_t m = iv->n - i0 < SP_SPAN ? iv->n - i0 : SP_SPAN;
    sp_span_t sp;
    sp_span_sums(st + i0, en + i0, m, k, &sp);
    down |= sp.down != 0;
    flat |= sp.flat != 0;
    bad |= sp.bad != 0;
    if (((uint64_t)k & inexact) == 0 && (sp.bits & inexact) == 0) {
      t1 += (double)(sp.s1 - k * m); /* both below 2^62 */
      t2 += sp.s2;
      mn = sp.mn < mn ? sp.mn : mn;
      mx = sp.mx > mx ? sp.mx : mx;
    } else { /* rare: a day-long call or a damaged file */
      sp_span_doubles(st + i0, en + i0, m, k, &t1, &t2, &mn, &mx);
    }
  }
  /* The latest end and its call, first of equals: the last call when the
   * ends rise strictly. */
  int64_t le = flat ? sp_max(en, iv->n) : en[iv->n - 1];
  int64_t li = iv->n - 1;
  while (en[li] != le) li--;
  if (flat && sp_count_equal(en, li, le) > 0)
    for (li = 0; en[li] != le; li++) continue;
  int64_t first = 0; /* the earliest start, first of equals */
  for (int64_t i = 1; down && i < iv->n; i++)
    if (st[i] < st[first]) first = i;
  d->total = t1 + (double)k * (double)iv->n;
  d->min = mn;
  d->max = mx;
  d->first_start = st[first];
  d->first = sp_duration(st[first], en[first]);
  d->last_end = le;
  d->last = sp_duration(st[li], en[li]);
  d->mean = d->total / (double)iv->n;
  d->m2 = t2 - t1 * t1 / (double)iv->n;
  if (d->m2 < 0) d->m2 = 0;
  return (down ? SP_STAMPS_DOWN : 0u) | (bad ? SP_STAMPS_BAD : 0u);
}

/* The slice of sp__durations_read: SP_DCHUNK calls after the one before
 * them (the spans' order checks read it), so that the spans fall where
 * sp__durations puts them (1, 1 + SP_SPAN, ...). */
enum { SP_DCHUNK = 16 * SP_SPAN };

/* Running figures of sp__durations_read. */
typedef struct sp_dur_acc {
  int64_t k, mn, mx;
  double t1, t2;
  /* the earliest start (first of equals) and its duration; the latest end (first of equals)
   * and its duration */
  int64_t fs, fd, le, ld;
} sp_dur_acc_t;

/* The calls st/en[0..got) of a slice whose call 0 is the pair's call at
 * (call 0 of a later slice is the last call of the slice before). */
static void sp_dur_slice(const int64_t *st, const int64_t *en, int64_t got, sp_dur_acc_t *a) {
  const uint64_t inexact = ~(uint64_t)0 << SP_EXACT_BITS;
  for (int64_t i = 0; i < got; i++) {
    if (st[i] < a->fs) a->fs = st[i], a->fd = sp_duration(st[i], en[i]);
    if (en[i] > a->le) a->le = en[i], a->ld = sp_duration(st[i], en[i]);
  }
  for (int64_t i0 = 1; i0 < got; i0 += SP_SPAN) {
    int64_t m = got - i0 < SP_SPAN ? got - i0 : SP_SPAN;
    sp_span_t sp;
    sp_span_sums(st + i0, en + i0, m, a->k, &sp);
    if (((uint64_t)a->k & inexact) == 0 && (sp.bits & inexact) == 0) {
      a->t1 += (double)(sp.s1 - a->k * m);
      a->t2 += sp.s2;
      a->mn = sp.mn < a->mn ? sp.mn : a->mn;
      a->mx = sp.mx > a->mx ? sp.mx : a->mx;
    } else {
      sp_span_doubles(st + i0, en + i0, m, a->k, &a->t1, &a->t2, &a->mn, &a->mx);
    }
  }
}

int sp__durations_read(sp_reader_t *r, int g, int k, int64_t n, sp_reader_durations_t *d) {
  memset(d, 0, sizeof *d);
  d->first_start = INT64_MAX;
  d->last_end = INT64_MIN;
  d->n = n;
  if (n <= 0) return 0;
  int64_t *st = malloc((SP_DCHUNK + 1) * sizeof *st), *en = malloc((SP_DCHUNK + 1) * sizeof *en);
  int rc = st && en ? 0 : sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  sp_dur_acc_t a = {0, 0, 0, 0, 0, INT64_MAX, 0, INT64_MIN, 0};
  for (int64_t at = 0; rc == 0 && at < n; at += SP_DCHUNK) {
    int64_t want = n - at < SP_DCHUNK + 1 ? n - at : SP_DCHUNK + 1;
    int64_t got = sp_reader_read_range(r, g, k, at, want, st, en, NULL);
    if (got != want) {
      rc = at == 0 && got <= 0 ? 1
           : got < 0           ? (int)got
                     : sp__reader_fail(r, SP_READER_EDATA, "the file changed while it was read");
      break;
    }
    if (at == 0) a.k = a.mn = a.mx = sp_duration(st[0], en[0]);
    sp_dur_slice(st, en, got, &a);
  }
  free(st);
  free(en);
  if (rc) return rc;
  d->total = a.t1 + (double)a.k * (double)n;
  d->min = a.mn;
  d->max = a.mx;
  d->first_start = a.fs;
  d->first = a.fd;
  d->last_end = a.le;
  d->last = a.ld;
  d->mean = d->total / (double)n;
  d->m2 = a.t2 - a.t1 * a.t1 / (double)n;
  if (d->m2 < 0) d->m2 = 0;
  return 0;
}
