/* test_reader_merge.c - sp_reader_merge_open_flags(SP_READER_MERGE_UNSCANNED)
 * against the scanned merge, on the file of postproc.otf2.stream_order
 * (check_otf2_stream.py: on rank 0 region c is stored threads in reverse,
 * 17,000 calls a thread, so it falls out of order past the first 16,384
 * calls the unscanned open checks; b and rec are out of order at once;
 * rank 2's one region is in order).
 *
 * usage: test_reader_merge FILE
 * Rank 2: the unscanned merge gives every call of the scanned one, the same
 * calls in the same order. Rank 0: calls in order, then SP_READER_EORDER
 * with a message (before the scanned merge's end). */
#include <stdlib.h>

#include "sp_reader_test.h"

/* Every call of rank k's merge (all regions) into *out; returns how many,
 * *rc the last return of next_n (0 at the end or a negative code). */
static int64_t sp_calls(sp_reader_t *r, int k, unsigned flags, sp_reader_call_t **out, int *rc) {
  int n = sp_reader_num_regions(r);
  int *regions = malloc((size_t)n * sizeof *regions);
  for (int g = 0; g < n; g++) regions[g] = g;
  sp_reader_merge_t *m = NULL;
  *rc = sp_reader_merge_open_flags(r, k, regions, NULL, n, flags, &m);
  free(regions);
  int64_t len = 0, cap = 1 << 20;
  *out = malloc((size_t)cap * sizeof **out);
  while (*rc == 0) {
    if (len + 1024 > cap) *out = realloc(*out, (size_t)(cap *= 2) * sizeof **out);
    int64_t got = sp_reader_merge_next_n(m, *out + len, 1024);
    if (got <= 0) {
      *rc = (int)got;
      break;
    }
    len += got;
  }
  sp_reader_merge_close(m);
  return len;
}

static int sp_same(const sp_reader_call_t *a, const sp_reader_call_t *b) {
  return a->start == b->start && a->end == b->end && a->thread == b->thread && a->key == b->key &&
         a->slot == b->slot && a->index == b->index;
}

/* The first position where a and b differ (n if none). */
static int64_t sp_first_diff(const sp_reader_call_t *a, const sp_reader_call_t *b, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!sp_same(&a[i], &b[i])) return i;
  return n;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_reader_merge FILE\n");
    return 2;
  }
  sp_reader_t *r = sp_test_open(NULL, argv[1]);
  CHECK_INT(sp_reader_num_ranks(r), 3);
  sp_reader_call_t *want, *got;
  int rc_want, rc_got;

  /* Rank 2: in order; the same calls. */
  int64_t nw = sp_calls(r, 2, 0, &want, &rc_want);
  int64_t ng = sp_calls(r, 2, SP_READER_MERGE_UNSCANNED, &got, &rc_got);
  CHECK_INT(rc_want, 0);
  CHECK_INT(rc_got, 0);
  CHECK_INT(nw, 200000);
  CHECK_INT(ng, nw);
  CHECK_INT(sp_first_diff(want, got, ng < nw ? ng : nw), ng < nw ? ng : nw);
  free(want);
  free(got);

  /* Rank 0: c out of order past the open's check: a prefix, then EORDER. */
  nw = sp_calls(r, 0, 0, &want, &rc_want);
  ng = sp_calls(r, 0, SP_READER_MERGE_UNSCANNED, &got, &rc_got);
  CHECK_INT(rc_want, 0);
  CHECK_INT(nw, 4 * 17000 * 5); /* a, b, c and rec's two calls a round, 4 threads */
  CHECK_INT(rc_got, SP_READER_EORDER);
  CHECK_INT(ng > 0 && ng < nw, 1);
  /* What came before: in order, but without c's calls of threads 0-2
   * (its run's head was thread 3's first call): not the scanned merge's
   * prefix, which is why a caller drops it. */
  int64_t ordered = 1;
  for (int64_t i = 1; i < ng; i++)
    ordered &= got[i].thread > got[i - 1].thread ||
               (got[i].thread == got[i - 1].thread && got[i].start >= got[i - 1].start);
  CHECK_INT(ordered, 1);
  CHECK_INT(sp_first_diff(want, got, ng) < ng, 1);
  CHECK_INT(strstr(sp_reader_errmsg(r), "out of order") != NULL, 1);
  CHECK_STR(sp_reader_err_name(SP_READER_EORDER), "SP_READER_EORDER");
  free(want);
  free(got);
  sp_reader_close(r);
  if (sp_test_failures == 0) printf("ok: unscanned merge = scanned merge, EORDER past the check\n");
  return sp_test_failures != 0;
}
