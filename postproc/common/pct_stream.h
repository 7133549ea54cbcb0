/* pct_stream.h - --summary --columns pN in bounded memory (pct_stream.c):
 * the exact percentiles of a row's durations (numpy's default linear
 * interpolation), whatever their number. A row keeps its durations while
 * there are at most keep_max of them (then sorted, as before); past that
 * it keeps a histogram instead, and the order statistics the percentiles
 * need are found by further passes over the row's durations (each pass
 * narrows every one to a value range, then collects the few values of that
 * range): memory is bounded by constants, not by the calls. */
#ifndef SP_PCT_STREAM_H
#define SP_PCT_STREAM_H

#include <stdint.h>

typedef struct sp_pct sp_pct_t;

/* A new state (NULL without memory). */
sp_pct_t *sp_pct_new(int64_t keep_max);
void sp_pct_free(sp_pct_t *p);
/* One duration of the first pass (ns, >= 0); 0 or -1 without memory. */
int sp_pct_add(sp_pct_t *p, int64_t d);
/* Durations added. */
int64_t sp_pct_count(const sp_pct_t *p);
/* After the first pass: plans the order statistics of percentiles
 * pcts[0..np) (np <= 8). 1: done (sp_pct_result can be read), 0: another
 * pass is needed (sp_pct_visit each duration again, then sp_pct_step),
 * -1 without memory. */
int sp_pct_plan(sp_pct_t *p, const double *pcts, int np);
/* One duration of a further pass. */
void sp_pct_visit(sp_pct_t *p, int64_t d);
/* After a further pass: 1 done, 0 another pass, -1 without memory, -2 the
 * durations were not those of the first pass (the file changed). */
int sp_pct_step(sp_pct_t *p);
/* The percentiles, ns, into out[0..np). */
void sp_pct_result(const sp_pct_t *p, double *out);

#endif
