/* fuzz_aggspill.c - libFuzzer harness for the .aggspill parser (profile
 * mode's aggregates saved at exit, read by scope-profiler-merge;
 * c/src/profile/aggregate_blob.c). The input is a whole file; it is parsed into an
 * empty snapshot and then into one that already holds a file's, as the
 * merge does with several. A parse that succeeds must leave a snapshot
 * every index of which holds; one that fails must leave it as it was. Any
 * crash, sanitizer report or leak is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The promises of a snapshot that aggregate_h5.c relies on. */
static void sp_fuzz_check(const sp_agg_snap_t *s) {
  for (int64_t i = 0; i < s->nnames; i++)
    if (!s->names[i]) abort();
  for (int64_t i = 0; i < s->nrows; i++) {
    const sp_agg_row_t *r = &s->rows[i];
    if (r->region < 0 || r->region >= s->nnames || r->parent < -1 || r->parent >= s->nrows ||
        r->rank < 0 || r->thread < 0)
      abort();
  }
  for (int64_t i = 0; i < s->nbks; i++)
    if (s->bks[i].row < 0 || s->bks[i].row >= s->nrows || s->bks[i].bucket < 0 ||
        s->bks[i].bucket >= SP_AGG_NBUCKETS)
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sp_agg_snap_t s;
  memset(&s, 0, sizeof s);
  /* Copied: the parser gets no more bytes than the file has. */
  char *buf = malloc(size ? size : 1);
  if (!buf) return 0;
  if (size) memcpy(buf, data, size);
  int rc = sp__aggspill_parse(buf, (int64_t)size, &s, NULL);
  if (rc == 0) sp_fuzz_check(&s);
  const int64_t n[3] = {s.nnames, s.nrows, s.nbks};
  /* Into a snapshot that holds something already (the second file). */
  rc = sp__aggspill_parse(buf, (int64_t)size, &s, NULL);
  if (rc != 0 && (s.nnames != n[0] || s.nrows != n[1] || s.nbks != n[2])) abort();
  sp_fuzz_check(&s);
  sp__agg_snap_free(&s);
  free(buf);
  return 0;
}
