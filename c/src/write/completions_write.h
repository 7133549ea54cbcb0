/* completions_write.h - the requests waits and tests completed, into the
 * file: rank<N>/mpi/completions (completions_write.c). Never installed. */
#ifndef SP_COMPLETIONS_WRITE_H
#define SP_COMPLETIONS_WRITE_H

#include <hdf5.h>

#include "spill_read.h"

/* spill_read.c: indexes one SP_SPILL_MPI_DONE record at payload offset off. */
SP_HIDDEN int sp__done_index_record(sp_spill_file_t *f, uint64_t len, int64_t off);
/* Finalize, collective over par: every rank's completions (spilled ones
 * from spill, then those still in its threads' memory) into
 * rank<N>/mpi/completions of partial_path, written by rank 0. Nothing when no rank has any. */
struct sp_par;
SP_HIDDEN int sp__done_finalize(struct sp_par *par, const char *partial_path,
                                const sp_spill_file_t *spill);
/* This rank's completions as one blob (spilled, then in memory), regions
 * named by handle: what finalize gathers. 0 or an SP_E code; *blob NULL when none. */
SP_HIDDEN int sp__done_blob(const sp_spill_file_t *spill, char **blob, int64_t *len);
/* The same from a spill file alone (recovery; its names by handle). */
SP_HIDDEN int sp__done_blob_spill(const sp_spill_file_t *spill, char **blob, int64_t *len);
/* Columnar: the nranks blobs all[offs[r] .. offs[r + 1]) as mpi_completions/
 * (ranks, then the columns of rank<N>/mpi/completions), regions as indices of
 * the name table (sorted, nt names). Nothing when there are no rows. */
SP_HIDDEN int sp__done_columnar(hid_t file, int nranks, const char *all, const int64_t *offs,
                                char *const *table, int64_t nt);
/* Recovery: rank's completions in its spill file into rank<rank>/mpi/completions. */
SP_HIDDEN int sp__done_recover(hid_t file, int rank, const sp_spill_file_t *spill);

#endif
