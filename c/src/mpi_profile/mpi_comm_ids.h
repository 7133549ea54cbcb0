/* mpi_comm_ids.h - the id of each communicator, the same on all its members
 * (mpi_comm_ids.c, mpi_comm_create.c). */
#ifndef SP_MPI_COMM_IDS_H
#define SP_MPI_COMM_IDS_H

#include <mpi.h>
#include <string.h>

#include "sp_internal.h"

_Static_assert(sizeof(MPI_Comm) <= 8, "a communicator handle fits the id cache's key");

#define SP_COMM_WORLD_ID 0
#define SP_COMM_SELF_ID 1
#define SP_COMM_CACHE 64 /* entries of the direct-mapped cache, a power of two */

/* Live handles -> ids, direct-mapped by the handle: each entry is
 * (handle << 16) | (id + 1), one word, so a reader needs one load and no
 * lock; 0 is empty. Handles of 48 bits or more are never cached (the
 * lookup then always takes sp__mpi_comm_id_slow). Written under
 * mpi_comm_ids.c's lock. */
SP_HIDDEN extern uint64_t sp__mpi_comm_cache[SP_COMM_CACHE];

static inline uint64_t sp__mpi_comm_key(MPI_Comm c) {
  uint64_t k = 0;
  memcpy(&k, &c, sizeof c);
  return k;
}
static inline uint32_t sp__mpi_comm_slot(uint64_t k) {
  return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 58) & (SP_COMM_CACHE - 1);
}

/* The id of comm when it is not in the cache (fills it); -1 when not known. */
SP_HIDDEN int32_t sp__mpi_comm_id_slow(MPI_Comm comm);

/* comm's id (docs/automatic-regions.md "Tags and communicators"): the same
 * on every member, agreed at its creation (sp__mpi_comm_created);
 * MPI_COMM_WORLD 0, MPI_COMM_SELF 1; -1 for MPI_COMM_NULL or a communicator
 * made where no wrapper saw it. Inline: a compare, or a load and compare. */
static inline int32_t sp__mpi_comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return SP_COMM_WORLD_ID;
  const uint64_t k = sp__mpi_comm_key(comm);
  const uint64_t e = __atomic_load_n(&sp__mpi_comm_cache[sp__mpi_comm_slot(k)], __ATOMIC_RELAXED);
  if (SP_LIKELY((e >> 16) == k)) return (int32_t)(e & 0xFFFF) - 1;
  return sp__mpi_comm_id_slow(comm);
}

/* After a call that made comm (MPI_COMM_NULL: nothing): agrees its id with
 * the other members (a collective over comm: an MPI_Allreduce(MAX) of each
 * member's next free id, twice for an intercommunicator) and remembers its
 * members' world ranks. Every member calls it, in every session and also
 * when MPI calls are not recorded, so no member waits for another. */
SP_HIDDEN void sp__mpi_comm_created(MPI_Comm comm);
/* After MPI_Comm_idup from parent made comm: the same agreement, started
 * as a nonblocking allreduce over parent (an intracommunicator) and
 * finished at comm's first lookup or at its free. */
SP_HIDDEN void sp__mpi_comm_idup_started(MPI_Comm parent, MPI_Comm comm);
/* Before MPI_Comm_free or MPI_Comm_disconnect of comm: forgets its handle
 * (MPI may give it out again), not its id's table entry. */
SP_HIDDEN void sp__mpi_comm_forget(MPI_Comm comm);
/* Puts MPI_COMM_WORLD (0) and MPI_COMM_SELF (1) into the table; once. */
SP_HIDDEN void sp__mpi_comm_base(void);

#endif
