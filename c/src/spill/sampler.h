/* sampler.h - the process's RSS and CPU time every N ms (sampler.c); their
 * way into the file is samples_write.h. Never installed. */
#ifndef SP_SAMPLER_H
#define SP_SAMPLER_H

#include "sp_internal.h"

/* One sample; also its form in SP_SPILL_SAMPLES records. */
typedef struct sp_sample {
  int64_t t_ns;   /* CLOCK_MONOTONIC ns, the stamps' clock */
  int64_t rss;    /* resident set size, bytes (/proc/self/statm) */
  int64_t cpu_ns; /* CLOCK_PROCESS_CPUTIME_ID ns: all threads of the process */
} sp_sample_t;

/* ---- sampler.c ---- */
/* Starts the thread when period_ms > 0 (sp_setup); 0 or a message. */
SP_HIDDEN int sp__sampler_start(int64_t period_ms);
/* Ends the thread (a last sample taken) and keeps its samples for
 * sp__samples_finalize; nothing when it is not running. */
SP_HIDDEN void sp__sampler_stop(void);
/* Samples still in memory (not in the spill file) after sp__sampler_stop;
 * *period_ns 0 when the session did not sample. */
SP_HIDDEN const sp_sample_t *sp__sampler_tail(int64_t *n, int64_t *period_ns);
/* Frees the samples (end of finalize, sp_setup discarding a session). */
SP_HIDDEN void sp__sampler_forget(void);
/* At exit without sp_finalize: the thread stops adding samples, and with
 * keep those in memory go to the spill file. */
SP_HIDDEN void sp__sampler_exit_spill(int keep);
/* A flush signal: the samples in memory go to the spill file (with
 * flush_to_disk); sampling goes on. */
SP_HIDDEN void sp__sampler_flush(void);
SP_HIDDEN void sp__sampler_fork_prepare(void);
SP_HIDDEN void sp__sampler_fork_parent(void);
SP_HIDDEN void sp__sampler_fork_child(void); /* the child has no sampler */
/* The kernel's high-water mark of the RSS (getrusage ru_maxrss), bytes. */
SP_HIDDEN int64_t sp__sampler_maxrss(void);

#endif
