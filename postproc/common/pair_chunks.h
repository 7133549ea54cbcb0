/* pair_chunks.h - one (region, rank) pair's calls in slices (pair_chunks.c):
 * the charts' per-call passes in memory flat in the pair's calls (issue 47:
 * a pair loaded whole took 20 bytes a call, 1e7 calls 200 MB). */
#ifndef SP_PAIR_CHUNKS_H
#define SP_PAIR_CHUNKS_H

#include "pproc.h"

/* Calls per slice. */
enum { SP_PAIR_CHUNK = 65536 };

/* Calls [at, at + n) of the pair: stamps in ns as sp_reader_load gives
 * them, thread ids (NULL when the pair has none). Returns 0, or an
 * sp_exit_t code that stops the pass. */
typedef int (*sp_pair_chunk_fn)(void *ctx, const int64_t *start, const int64_t *end,
                                const int32_t *tids, int64_t at, int64_t n);

/* Passes the calls of region g on rank index k (reader indices) to fn in
 * order, SP_PAIR_CHUNK at a time. A pair the slices cannot read (the
 * reference tool's delta-encoded columns, or a damaged first slice) is
 * loaded whole and passed in one piece (sp_load_intervals: it says why
 * when that fails too). A pair without stamps passes nothing. Returns 0 or
 * an sp_exit_t code after printing why (fn's own code unchanged). */
int sp_pair_chunks(sp_reader_t *r, const char *file, int g, int k, sp_pair_chunk_fn fn, void *ctx);

#endif
