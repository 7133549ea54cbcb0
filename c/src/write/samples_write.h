/* samples_write.h - the sampler's samples into the file (samples_write.c).
 * Never installed. */
#ifndef SP_SAMPLES_WRITE_H
#define SP_SAMPLES_WRITE_H

#include <hdf5.h>

#include "sampler.h"
#include "spill_read.h"

/* ---- samples_write.c ---- */
/* spill_read.c: indexes one SP_SPILL_SAMPLES record at payload offset off. */
SP_HIDDEN int sp__samples_index_record(sp_spill_file_t *f, uint64_t len, int64_t off);
/* Finalize, collective over par: every rank's samples (spilled ones from
 * spill, plus the sampler's tail) into rank<N>/samples of partial_path,
 * written by rank 0. Nothing when no rank sampled. */
struct sp_par;
SP_HIDDEN int sp__samples_finalize(struct sp_par *par, const char *partial_path,
                                   const sp_spill_file_t *spill);
/* This rank's samples (spilled ones from spill, plus the sampler's tail)
 * as the blob rank 0 gathers (*len 0:
 * this rank did not sample, or they are lost, which it says); the caller
 * frees *blob. */
SP_HIDDEN void sp__samples_blob(const sp_spill_file_t *spill, char **blob, int64_t *len);
/* The gathered blobs of nranks ranks into the open columnar file:
 * samples/{times,rss_bytes,cpu_ns,offsets,counts,period_ns} and
 * rank_info/peak_rss_bytes (columnar_write.c lists them). */
SP_HIDDEN int sp__samples_columnar(hid_t file, int nranks, const char *all, const int64_t *offs);
/* Recovery: one rank's spilled samples as the blob sp__samples_gather
 * gathers (*len 0: none); the caller frees *blob. */
SP_HIDDEN int sp__samples_blob_spill(const sp_spill_file_t *spill, char **blob, int64_t *len);
/* Recovery: one rank's spilled samples into the open file. */
SP_HIDDEN int sp__samples_recover(hid_t file, int rank, const sp_spill_file_t *spill);

#endif
