/* aggregate_recover.h - profile mode's aggregates at exit without
 * sp_finalize, and their recovery (aggregate_recover.c). Never installed. */
#ifndef SP_AGGREGATE_RECOVER_H
#define SP_AGGREGATE_RECOVER_H

#include "sp_internal.h"

/* Writes this process's aggregates to <spill_dir>/rank<R>.<host>.<pid>.aggspill
 * at exit without sp_finalize (exit_flush.c) and when sp_finalize could not
 * write them; why begins the message. 0 or SP_E*. */
SP_HIDDEN int sp__agg_exit_save(const char *why);
/* sp_finalize wrote the file after all: the exit file goes. */
SP_HIDDEN void sp__agg_exit_forget(void);
/* The saved file is for scope-profiler-merge: no later session removes it. */
SP_HIDDEN void sp__agg_exit_keep(void);

typedef struct sp_agg_recovery {
  int agg_files;   /* .aggspill files found */
  int unreadable;  /* of them, refused */
  int event_files; /* .spill files found (the trace is recovered too) */
} sp_agg_recovery_t;

/* sp_spill_merge: writes the aggregates of the inputs' .aggspill files to
 * out_path, or beside it (sp__agg_path) when event spill files are there
 * too. Nothing to do (0) when there are none. An existing file at that
 * path is replaced only with replace (SP_MERGE_REPLACE), never a FIFO or a
 * device; otherwise the result is kept aside, as sp_spill_merge2 does. */
SP_HIDDEN int sp__agg_recover(const char *const *inputs, int ninputs, const char *out_path,
                              int replace, sp_agg_recovery_t *r);

#endif
