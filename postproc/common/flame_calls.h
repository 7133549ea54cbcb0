/* flame_calls.h - the calls of one rank with their depth: the flame chart's
 * data (the reference tool's meaning, threads kept apart). */
#ifndef SP_FLAME_CALLS_H
#define SP_FLAME_CALLS_H

#include "pproc.h"

typedef struct sp_flame_call {
  int64_t start, end; /* ns */
  int32_t thread;     /* thread id (0 without thread ids) */
  int32_t row;        /* index into sel->regions */
  int32_t depth;      /* calls of the same thread still open at its start */
} sp_flame_call_t;

typedef struct sp_flame_calls {
  sp_flame_call_t *call; /* sorted by thread, start, longest first, name */
  int64_t n;
  int32_t *threads;   /* distinct thread ids, ascending */
  int32_t *max_depth; /* per thread: deepest depth */
  int nthreads;
} sp_flame_calls_t;

/* Loads every selected region's calls on rank sel->ranks[k] and computes their
 * depth per thread (a call is open from its start to its end; calls ending
 * at a start are closed). Memory: 28 bytes per call of the rank. Returns
 * an sp_exit_t code after printing why. */
int sp_flame_calls_load(const sp_selection_t *sel, int k, sp_flame_calls_t *fc);
void sp_flame_calls_free(sp_flame_calls_t *fc);

/* The flame chart's ranks: the first n of sel->ranks (*ranks), all of the
 * --ranks selection when given, else the first rank. Returns n. */
int sp_flame_ranks(const sp_selection_t *sel, const sp_options_t *o, const int **ranks);

#endif
