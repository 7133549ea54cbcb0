/* mpi_profile_io.h - MPI-IO calls as regions with bytes and file ids
 * (mpi_profile_io.c), for the C and the Fortran wrappers. Never installed. */
#ifndef SP_MPI_PROFILE_IO_H
#define SP_MPI_PROFILE_IO_H

#include "io_calls.h"
#include "mpi_profile.h"

/* One MPI-IO call between sp__mpi_io_begin and sp__mpi_io_end. */
typedef struct sp_mpi_io {
  int h;         /* its region */
  int io;        /* profile_io: its file's record too */
  int64_t slot;  /* its event's slot, -1 none; with one, its values follow */
  sp_io_rec_t r; /* the file record's part */
} sp_mpi_io_t;

/* Starts call (kind an SP_IO_K_*); 0 when it is not recorded, then the
 * wrapper just forwards. */
SP_HIDDEN int sp__mpi_io_begin(sp_mpi_io_t *x, sp_mpi_call_t call, int kind);
/* Ends it: the file's row (-1 unknown), bytes (-1 on an error), byte offset (-1 unknown). */
SP_HIDDEN void sp__mpi_io_end(sp_mpi_io_t *x, int32_t row, int64_t bytes, int64_t off);
/* The row of an open MPI_File (-1 unknown or profile_io off). */
SP_HIDDEN int32_t sp__mpi_io_row(MPI_File fh);
/* Before MPI_File_set_view on fh (C and Fortran): its explicit offsets are
 * in etypes of the new view from now on, no longer bytes. */
SP_HIDDEN void sp__mpi_io_view(MPI_File fh);
/* sp__mpi_io_end for an access of fh at explicit offset off (in etypes of
 * its view): its row and byte offset from one lookup of the handle. */
SP_HIDDEN void sp__mpi_io_end_at(sp_mpi_io_t *x, MPI_File fh, MPI_Offset off, int64_t bytes);
/* MPI_File_open succeeded on filename (fh): its row, given to the handle. */
SP_HIDDEN int32_t sp__mpi_io_opened(MPI_File fh, const char *filename);
/* MPI_File_close succeeded on what was fh. */
SP_HIDDEN void sp__mpi_io_closed(MPI_File fh);

#endif
