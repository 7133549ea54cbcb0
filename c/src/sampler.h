/* sampler.h - the process's RSS and CPU time every N ms (sampler.c), and
 * their way into the file (samples_write.c). Never installed. */
#ifndef SP_SAMPLER_H
#define SP_SAMPLER_H

#include <hdf5.h>

#include "sp_internal.h"
#include "spill_read.h"

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
/* At exit without sp_finalize: the samples in memory go to the spill file. */
SP_HIDDEN void sp__sampler_exit_spill(void);
SP_HIDDEN void sp__sampler_fork_prepare(void);
SP_HIDDEN void sp__sampler_fork_parent(void);
SP_HIDDEN void sp__sampler_fork_child(void); /* the child has no sampler */
/* The kernel's high-water mark of the RSS (getrusage ru_maxrss), bytes. */
SP_HIDDEN int64_t sp__sampler_maxrss(void);

/* ---- spill.c ---- */
/* Appends samples (and the ru_maxrss so far) as one SP_SPILL_SAMPLES record. */
SP_HIDDEN int sp__spill_samples(const sp_sample_t *s, int64_t n, int64_t maxrss, int64_t period_ns);

/* ---- samples_write.c ---- */
/* spill_read.c: indexes one SP_SPILL_SAMPLES record at payload offset off. */
SP_HIDDEN int sp__samples_index_record(sp_spill_file_t *f, uint64_t len, int64_t off);
/* Finalize, collective over par: every rank's samples (spilled ones from
 * spill, plus the sampler's tail) into rank<N>/samples of partial_path,
 * written by rank 0. Nothing when no rank sampled. */
struct sp_par;
SP_HIDDEN int sp__samples_finalize(struct sp_par *par, const char *partial_path,
                                   const sp_spill_file_t *spill);
/* Recovery: one rank's spilled samples into the open file. */
SP_HIDDEN int sp__samples_recover(hid_t file, int rank, const sp_spill_file_t *spill);

#endif
