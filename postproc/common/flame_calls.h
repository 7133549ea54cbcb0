/* flame_calls.h - the calls of one rank with their depth: the flame chart's
 * data (the reference tool's meaning, threads kept apart), streamed. */
#ifndef SP_FLAME_CALLS_H
#define SP_FLAME_CALLS_H

#include "pproc.h"

typedef struct sp_flame_call {
  int64_t start, end; /* ns */
  int32_t thread;     /* thread id (0 without thread ids) */
  int32_t row;        /* index into sel->regions */
  int32_t depth;      /* calls of the same thread still open at its start */
} sp_flame_call_t;

/* A rank's calls one at a time, by thread, start, longest first, region
 * name (the order of calls with identical stamps is otherwise unknowable:
 * the call tree uses the same rule), each with its depth. Memory: the
 * reader's merge (a chunk per sorted run, sp_reader_merge_open) and a
 * stack of the calls open at once, not the rank's calls (loaded and
 * sorted, 28 bytes a call, the flame chart took 644 MB at 1e7 calls). */
typedef struct sp_flame_stream sp_flame_stream_t;

/* Opens the calls of every selected region on rank sel->ranks[k]. Returns
 * an sp_exit_t code after printing why. */
int sp_flame_stream_open(const sp_selection_t *sel, int k, sp_flame_stream_t **out);
/* The next call into *c: 1, 0 after the last, or minus an sp_exit_t code
 * after printing why. */
int sp_flame_stream_next(sp_flame_stream_t *s, sp_flame_call_t *c);
void sp_flame_stream_close(sp_flame_stream_t *s);

/* What a first pass over a rank's stream finds: the layout of its bands. */
typedef struct sp_flame_calls {
  int64_t n;          /* calls */
  int64_t last_end;   /* latest end, ns (INT64_MIN without calls) */
  int32_t *threads;   /* distinct thread ids, ascending */
  int32_t *max_depth; /* per thread: deepest depth */
  int nthreads;
} sp_flame_calls_t;

/* One pass over rank sel->ranks[k]'s calls into *fc. Returns an sp_exit_t
 * code after printing why. */
int sp_flame_calls_scan(const sp_selection_t *sel, int k, sp_flame_calls_t *fc);
void sp_flame_calls_free(sp_flame_calls_t *fc);

/* The flame chart's ranks: the first n of sel->ranks (*ranks), all of the
 * --ranks selection when given, else the first rank. Returns n. */
int sp_flame_ranks(const sp_selection_t *sel, const sp_options_t *o, const int **ranks);

#endif
