/* mpi_extra.h - the bytes and peer of each recorded MPI call (profile_mpi).
 *
 * Beside each MPI call region's start/end stamps, a call stores how many
 * bytes this rank sent or received in it and its partner's rank. They
 * follow the stamps' order thread by thread (an MPI call never nests in
 * itself on one thread, so the k-th completed call of a region on a thread
 * is its k-th event), go through the spill file as their own records
 * (SP_SPILL_MPI_EXTRA_TC) and are written as rank<N>/regions/<MPI_Name>/bytes
 * (int64), /peer, /tag and /comm (int32) by finalize and recovery
 * (raw_write.c). A call's comm is this rank's id of its communicator; the
 * table of ids (size and world ranks of the members) is kept here too and
 * written as rank<N>/mpi/comm_sizes and /comm_members (layout.c). */
#ifndef SP_MPI_EXTRA_H
#define SP_MPI_EXTRA_H

#include "sp_internal.h"

/* One call's values: 24 bytes in memory and in spill files (SP_SPILL_MPI_EXTRA_TC;
 * files of older versions hold the first 16 of them, SP_SPILL_MPI_EXTRA). */
typedef struct sp_mpi_x {
  int64_t bytes; /* payload sent plus received, bytes; -1 where not known */
  int32_t peer;  /* partner's rank in the communicator; -1 for none/several */
  int32_t tag;   /* the message's tag (as matched, for a receive); -1: none or not known */
  int32_t comm;  /* this rank's id of the communicator (sp__mpi_comm_add); -1: not known */
  int32_t pad;   /* 0 */
} sp_mpi_x_t;

/* Starts the call's region h (sp_start); returns 1 when the call got an
 * event slot, so its values must follow at sp__mpi_end. */
SP_HIDDEN int sp__mpi_begin(int h);
/* Appends the values of the call of region h just stopped (sp__mpi_begin gave 1). */
SP_HIDDEN void sp__mpi_note(int h, int64_t bytes, int32_t peer);
/* The same with the call's tag and communicator id. */
SP_HIDDEN void sp__mpi_note_tc(int h, int64_t bytes, int32_t peer, int32_t tag, int32_t comm);

/* A new communicator id of this rank (0, 1, ... in the order of the calls):
 * its size and the world ranks of its members in its rank order (for an
 * intercommunicator, of its remote group, which its peers index). -1 when
 * out of memory. Thread-safe. */
SP_HIDDEN int32_t sp__mpi_comm_add(int32_t size, const int32_t *world_ranks);
/* The table: *n ids; sizes[id]; members, the ids' world ranks one after the
 * other. Valid until the next sp__mpi_comm_add; caller holds no lock, so
 * call it when no MPI call is being recorded (finalize). */
SP_HIDDEN void sp__mpi_comms(int32_t *n, const int32_t **sizes, int64_t *nmembers,
                             const int32_t **members);

/* The values of region h still in t's memory (this session); n returned. */
SP_HIDDEN int64_t sp__mpi_extra_mem(const sp_thread_t *t, int32_t h, const sp_mpi_x_t **x);
/* 1 when region h has values on any thread (memory or spilled). */
SP_HIDDEN int sp__mpi_extra_any(int32_t h);
/* Appends every value t holds to the spill file (exit and signal flush). */
SP_HIDDEN void sp__mpi_extra_flush(sp_thread_t *t);

#endif
