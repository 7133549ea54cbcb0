/* pair_chunks.c - a pair's calls in slices of SP_PAIR_CHUNK (pair_chunks.h). */
#include <stdlib.h>

#include "pair_chunks.h"

/* The pair loaded whole, passed in one piece. */
static int sp_pair_whole(sp_reader_t *r, int g, int k, sp_pair_chunk_fn fn, void *ctx) {
  sp_reader_intervals_t iv;
  int rc = sp_load_intervals(r, g, k, &iv);
  if (rc) return rc;
  if (iv.n > 0) rc = fn(ctx, iv.start, iv.end, iv.thread_ids, 0, iv.n);
  sp_reader_intervals_free(&iv);
  return rc;
}

int sp_pair_chunks(sp_reader_t *r, const char *file, int g, int k, sp_pair_chunk_fn fn, void *ctx) {
  sp_reader_info_t info;
  if (sp_reader_info(r, g, k, &info) != 0 || !info.present || !info.has_times ||
      info.num_intervals <= 0)
    return sp_pair_whole(r, g, k, fn, ctx); /* as before: says why, or no calls */
  int64_t *s = malloc(SP_PAIR_CHUNK * sizeof *s), *e = malloc(SP_PAIR_CHUNK * sizeof *e);
  int32_t *t = info.has_thread_ids ? malloc(SP_PAIR_CHUNK * sizeof *t) : NULL;
  int rc = s && e && (t || !info.has_thread_ids) ? 0 : SP_EXIT_IO;
  for (int64_t at = 0; rc == 0 && at < info.num_intervals;) {
    int64_t got = sp_reader_read_range(r, g, k, at, SP_PAIR_CHUNK, s, e, t);
    if (got <= 0 && at == 0) { /* delta-encoded, or damaged: the load reads or says why */
      rc = -1;
    } else if (got < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(r));
      rc = sp_exit_for_reader((int)got);
    } else if (got == 0) {
      sp_msg(SP_QUIET, "%s: region '%s': the file changed while it was read", file,
             sp_reader_region_name(r, g));
      rc = SP_EXIT_DATA;
    } else {
      rc = fn(ctx, s, e, t, at, got);
      at += got;
    }
  }
  free(s);
  free(e);
  free(t);
  return rc == -1 ? sp_pair_whole(r, g, k, fn, ctx) : rc;
}
