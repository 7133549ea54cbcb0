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
/* Recovery: rank's completions in its spill file into rank<rank>/mpi/completions. */
SP_HIDDEN int sp__done_recover(hid_t file, int rank, const sp_spill_file_t *spill);

#endif
