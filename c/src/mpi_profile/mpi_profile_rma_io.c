/* mpi_profile_rma_io.c - one-sided calls as regions, with bytes and peer.
 *
 * Put, Get and Accumulate store the origin's bytes (origin count x origin
 * type size) and the target rank; Win_lock and Win_unlock the rank they
 * lock; Win_fence 0 bytes, peer -1. MPI-IO: mpi_profile_io.c. */
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
