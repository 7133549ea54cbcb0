/* mpi_profile_rma_io.c - one-sided and MPI-IO calls as regions, with bytes and peer.
 *
 * Put, Get and Accumulate store the origin's bytes (origin count x origin
 * type size) and the target rank; Win_lock and Win_unlock the rank they
 * lock; Win_fence 0 bytes, peer -1. The MPI-IO reads and writes store the
 * bytes their arguments ask for (count x type size) and peer -1. */
#include "mpi_profile.h"

int MPI_Put(const void *ob, int oc, MPI_Datatype ot, int target, MPI_Aint td, int tc,
            MPI_Datatype tt, MPI_Win win) {
  SP_MPI_CALL(PUT, PMPI_Put(ob, oc, ot, target, td, tc, tt, win),
              target >= 0 ? sp__mpi_tbytes(oc, ot) : 0, sp__mpi_peer(target));
}

int MPI_Get(void *ob, int oc, MPI_Datatype ot, int target, MPI_Aint td, int tc, MPI_Datatype tt,
            MPI_Win win) {
  SP_MPI_CALL(GET, PMPI_Get(ob, oc, ot, target, td, tc, tt, win),
              target >= 0 ? sp__mpi_tbytes(oc, ot) : 0, sp__mpi_peer(target));
}

int MPI_Accumulate(const void *ob, int oc, MPI_Datatype ot, int target, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  SP_MPI_CALL(ACCUMULATE, PMPI_Accumulate(ob, oc, ot, target, td, tc, tt, op, win),
              target >= 0 ? sp__mpi_tbytes(oc, ot) : 0, sp__mpi_peer(target));
}

int MPI_Win_fence(int assert_, MPI_Win win) {
  SP_MPI_CALL(WIN_FENCE, PMPI_Win_fence(assert_, win), 0, -1);
}

int MPI_Win_lock(int type, int rank, int assert_, MPI_Win win) {
  SP_MPI_CALL(WIN_LOCK, PMPI_Win_lock(type, rank, assert_, win), 0, sp__mpi_peer(rank));
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  SP_MPI_CALL(WIN_UNLOCK, PMPI_Win_unlock(rank, win), 0, sp__mpi_peer(rank));
}

#define SP_FILE_IO(ID, NAME, CONST)                                                         \
  int MPI_##NAME(MPI_File fh, CONST void *buf, int count, MPI_Datatype t, MPI_Status *st) { \
    SP_MPI_CALL(ID, PMPI_##NAME(fh, buf, count, t, st), sp__mpi_tbytes(count, t), -1);      \
  }
#define SP_FILE_IO_AT(ID, NAME, CONST)                                                      \
  int MPI_##NAME(MPI_File fh, MPI_Offset off, CONST void *buf, int count, MPI_Datatype t,   \
                 MPI_Status *st) {                                                          \
    SP_MPI_CALL(ID, PMPI_##NAME(fh, off, buf, count, t, st), sp__mpi_tbytes(count, t), -1); \
  }
SP_FILE_IO(FILE_WRITE, File_write, const)
SP_FILE_IO(FILE_READ, File_read, )
SP_FILE_IO(FILE_WRITE_ALL, File_write_all, const)
SP_FILE_IO(FILE_READ_ALL, File_read_all, )
SP_FILE_IO_AT(FILE_WRITE_AT, File_write_at, const)
SP_FILE_IO_AT(FILE_READ_AT, File_read_at, )
SP_FILE_IO_AT(FILE_WRITE_AT_ALL, File_write_at_all, const)
SP_FILE_IO_AT(FILE_READ_AT_ALL, File_read_at_all, )
