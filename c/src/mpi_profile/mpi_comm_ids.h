/* mpi_comm_ids.h - this rank's id of each communicator its recorded MPI calls name
 * (mpi_comm_ids.c). */
#ifndef SP_MPI_COMM_IDS_H
#define SP_MPI_COMM_IDS_H

#include <mpi.h>

#include "sp_internal.h"

/* The cache of live handles (mpi_comm_ids.c), read inline by every
 * recorded call: a call costs no function call once its handle is known. */
typedef struct sp_comm_ent {
  MPI_Comm comm; /* MPI_COMM_NULL: a free slot */
  int32_t id;
} sp_comm_ent_t;
SP_HIDDEN extern sp_comm_ent_t sp__comm_cache[];
SP_HIDDEN extern int32_t sp__comm_used;     /* slots ever used, published after the slot */
SP_HIDDEN extern unsigned sp__comm_session; /* sp__session + 1 the cache belongs to */

/* The slow path: registers comm (its members into the table); its id or -1. */
SP_HIDDEN int32_t sp__mpi_comm_register(MPI_Comm comm);

/* This rank's id of comm (mpi_extra.h), given on first sight; -1 for
 * MPI_COMM_NULL or when not known. */
static inline int32_t sp__mpi_comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return -1;
  if (SP_LIKELY(__atomic_load_n(&sp__comm_session, __ATOMIC_ACQUIRE) == sp__session + 1u)) {
    const int32_t n = __atomic_load_n(&sp__comm_used, __ATOMIC_ACQUIRE);
    for (int32_t i = 0; i < n; i++)
      if (__atomic_load_n(&sp__comm_cache[i].comm, __ATOMIC_ACQUIRE) == comm)
        return __atomic_load_n(&sp__comm_cache[i].id, __ATOMIC_RELAXED);
  }
  return sp__mpi_comm_register(comm);
}

#endif
