/* raw_write.h - streaming the events of this rank into the file. */
#ifndef SP_RAW_WRITE_H
#define SP_RAW_WRITE_H

#include "layout.h"
#include "par.h"
#include "plan.h"

/* How the events reach the file (SCOPE_PROFILER_RAW_WRITE). */
typedef enum sp_raw_mode {
  SP_RAW_POSIX,      /* each rank opens the file itself and pwrites its blocks */
  SP_RAW_MPIIO,      /* each rank MPI_File_write_at through a collective open */
  SP_RAW_COLLECTIVE  /* one MPI_File_write_all over all ranks per round */
} sp_raw_mode_t;

/* Writes l's events at offs (from sp__layout_create) into path. With MPI
 * every rank of par calls it (in the MPI-IO modes the file is opened and
 * closed collectively); without MPI (par->active 0) mode must be
 * SP_RAW_POSIX.
 * round_bytes bounds the memory used. */
SP_HIDDEN int sp__raw_write(sp_par_t *par, const char *path, const sp_local_t *l,
                            const sp_region_offsets_t *offs, sp_raw_mode_t mode,
                            int64_t round_bytes);

#endif
