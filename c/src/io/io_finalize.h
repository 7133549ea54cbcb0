/* io_finalize.h - profile_io's file records at finalize (io_finalize.c). Never installed. */
#ifndef SP_IO_FINALIZE_H
#define SP_IO_FINALIZE_H

#include "sp_internal.h"

/* Finalize, collective over par: every rank's file records into
 * rank<N>/io of the trace file (ranks_path, or NULL) and/or io_files/ of the
 * columnar file (col_path, or NULL), written by rank 0. */
struct sp_par;
SP_HIDDEN int sp__io_finalize(struct sp_par *par, const char *ranks_path, const char *col_path);

/* The program ends without sp_finalize (or finalize failed): the rank's
 * records into its spill file (SP_SPILL_IO_FILES), for scope-profiler-merge. */
SP_HIDDEN void sp__io_spill(void);

#endif
