/* mpi_extra.h - the bytes and peer of each recorded MPI call (profile_mpi).
 *
 * Beside each MPI call region's start/end stamps, a call stores how many
 * bytes this rank sent or received in it and its partner's rank. They
 * follow the stamps' order thread by thread (an MPI call never nests in
 * itself on one thread, so the k-th completed call of a region on a thread
 * is its k-th event), go through the spill file as their own records
 * (SP_SPILL_MPI_EXTRA_TC) and are written as rank<N>/regions/<MPI_Name>/bytes
 * (int64), /peer, /tag and /comm (int32) by finalize and recovery
 * (raw_write.c). A call's comm is its communicator's id (the same on all
 * members, mpi_comm_ids.c); the table of ids (size and world ranks of the
 * members) is mpi_comms.h's, written as rank<N>/mpi/comm_sizes and
 * /comm_members (layout.c). */
#ifndef SP_MPI_EXTRA_H
#define SP_MPI_EXTRA_H

#include "mpi_comms.h"
#include "sp_internal.h"

/* One call's values: 16 bytes, as one event, in memory and in spill files
 * (SP_SPILL_MPI_EXTRA_TC). The comm id shares the first word with bytes:
 * 24 bytes a call cost ~2 ns more per recorded call, in memory and in the
 * spill file's writes (docs/performance.md, "MPI call tag and communicator").
 * Files of older versions hold {bytes, peer, 0} (SP_SPILL_MPI_EXTRA). */
typedef struct sp_mpi_x {
  /* bits 16..63: payload sent plus received, bytes, as a signed 48-bit
   * number (-1 where not known; larger than 2^47 - 1 saturates); bits
   * 0..15: the communicator's id + 1 (mpi_comm_ids.h; 0:
   * not known, also for ids from 65535 on). sp__mpi_x_pack, _bytes, _comm. */
  uint64_t bytes_comm;
  int32_t peer; /* partner's rank in the communicator; -1 for none/several */
  int32_t tag;  /* the message's tag (as matched, for a receive); -1: none or not known */
} sp_mpi_x_t;

static inline uint64_t sp__mpi_x_pack(int64_t bytes, int32_t comm) {
  const int64_t max = ((int64_t)1 << 47) - 1;
  if (bytes > max) bytes = max;
  if (bytes < -1) bytes = -1;
  const uint16_t c = comm >= 0 && comm < 0xFFFF ? (uint16_t)(comm + 1) : 0;
  return ((uint64_t)bytes << 16) | c;
}
static inline int64_t sp__mpi_x_bytes(const sp_mpi_x_t *x) {
  const int64_t b = (int64_t)(x->bytes_comm >> 16);
  return b & ((int64_t)1 << 47) ? b - ((int64_t)1 << 48) : b;
}
static inline int32_t sp__mpi_x_comm(const sp_mpi_x_t *x) {
  return (int32_t)(x->bytes_comm & 0xFFFF) - 1;
}

/* Starts the call's region h (sp_start); returns 1 when the call got an
 * event slot, so its values must follow at sp__mpi_end. */
SP_HIDDEN int sp__mpi_begin(int h);
/* The same, giving the call's event slot (-1: none, e.g. profile mode
 * alone, a count, a paused trace) and its start stamp in ticks (*t0, -1
 * without a slot): a caller that times the call too needs no clock read. */
SP_HIDDEN int64_t sp__mpi_begin_ev(int h, int64_t *t0);
/* The end stamp (ticks) of the call of h in slot, just after its sp_stop;
 * -1 when the slot no longer holds it (its buffer was flushed meanwhile). */
SP_HIDDEN int64_t sp__mpi_ev_end(int h, int64_t slot);
/* Appends the values of the call of region h just stopped (sp__mpi_begin
 * gave 1): its bytes, peer, tag and communicator id. errno is kept. */
SP_HIDDEN void sp__mpi_note_tc(int h, int64_t bytes, int32_t peer, int32_t tag, int32_t comm);
/* The same without a tag and communicator (-1 each). */
static inline void sp__mpi_note(int h, int64_t bytes, int32_t peer) {
  sp__mpi_note_tc(h, bytes, peer, -1, -1);
}

/* A request that a wait or test completed (docs/automatic-regions.md
 * "Completions"): a receive posted by MPI_Irecv (or a started Recv_init)
 * or a send posted by MPI_Isend & co. (or a started *send_init). 56 bytes,
 * in memory and in spill files (SP_SPILL_MPI_DONE). Calls are named by
 * their region (its handle; the file names it) and their index
 * among that region's calls on that thread (its event, as for the values
 * above); -1 where not recorded. */
typedef struct sp_mpi_done {
  int64_t wait_call; /* the completing call's index on thread */
  int64_t post_call; /* the posting call's index on post_thread */
  int64_t bytes;     /* receive: from the status; send: count x type size */
  int32_t wait_region, post_region;
  int32_t thread, post_thread;
  int32_t peer; /* receive: its source (from the status); send: its destination */
  int32_t tag;  /* receive: from the status; send: the tag it used */
  int32_t comm; /* the communicator's id (mpi_comm_ids.h) */
  int32_t send; /* 1: a send, 0: a receive */
} sp_mpi_done_t;

/* This thread's number of values of region h so far (this session): after
 * sp__mpi_note of a call, that call's index is this - 1. */
SP_HIDDEN int64_t sp__mpi_x_count(int h);
/* This thread's index (sp_thread_t.index), -1 when it has none. */
SP_HIDDEN int32_t sp__mpi_thread(void);
/* Appends one completion to this thread's list (spilled 4096 at a time,
 * and by sp__mpi_extra_flush). errno kept. */
SP_HIDDEN void sp__mpi_done_add(const sp_mpi_done_t *d);
/* The completions still in t's memory (this session); n returned. */
SP_HIDDEN int64_t sp__mpi_done_mem(const sp_thread_t *t, const sp_mpi_done_t **d);

/* The values of region h still in t's memory (this session); n returned. */
SP_HIDDEN int64_t sp__mpi_extra_mem(const sp_thread_t *t, int32_t h, const sp_mpi_x_t **x);
/* 1 when region h has values on any thread (memory or spilled). */
SP_HIDDEN int sp__mpi_extra_any(int32_t h);
/* Appends every value t holds to the spill file (exit and signal flush). */
SP_HIDDEN void sp__mpi_extra_flush(sp_thread_t *t);

#endif
