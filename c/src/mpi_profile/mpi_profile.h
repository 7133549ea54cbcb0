/* mpi_profile.h - MPI calls as regions (profile_mpi, SCOPE_PROFILER_PROFILE_MPI).
 *
 * SP_MPI_CALLS lists every wrapped call once; its ids (SP_MPI_CALL_<ID>)
 * are used by the C wrappers (mpi_profile_p2p.c, mpi_profile_coll.c,
 * mpi_profile_rma_io.c, mpi_profile_wait.c) and the Fortran ones
 * (mpi_profile_fortran.c), its names by mpi_profile.c, which registers
 * the regions. Each
 * call's bytes and peer (mpi_extra.h) follow the rules of
 * docs/automatic-regions.md "Bytes and peers". */
#ifndef SP_MPI_PROFILE_H
#define SP_MPI_PROFILE_H

#include <mpi.h>

#include "mpi_comm_ids.h"
#include "mpi_extra.h"
#include "sp_internal.h"

/* One line per call; clang-format would re-wrap the list differently on each run. */
/* clang-format off */
#define SP_MPI_CALLS(XX)                                  \
  XX(SEND, "MPI_Send") XX(BSEND, "MPI_Bsend")              \
  XX(SSEND, "MPI_Ssend") XX(RSEND, "MPI_Rsend")            \
  XX(RECV, "MPI_Recv")                                     \
  XX(ISEND, "MPI_Isend") XX(IBSEND, "MPI_Ibsend")          \
  XX(ISSEND, "MPI_Issend") XX(IRSEND, "MPI_Irsend")        \
  XX(IRECV, "MPI_Irecv")                                   \
  XX(START, "MPI_Start") XX(STARTALL, "MPI_Startall")      \
  XX(SENDRECV, "MPI_Sendrecv")                             \
  XX(SENDRECV_REPLACE, "MPI_Sendrecv_replace")             \
  XX(PROBE, "MPI_Probe") XX(IPROBE, "MPI_Iprobe")          \
  XX(WAIT, "MPI_Wait") XX(WAITALL, "MPI_Waitall")          \
  XX(WAITANY, "MPI_Waitany") XX(WAITSOME, "MPI_Waitsome")  \
  XX(TEST, "MPI_Test") XX(TESTALL, "MPI_Testall")          \
  XX(TESTANY, "MPI_Testany") XX(TESTSOME, "MPI_Testsome")  \
  XX(BARRIER, "MPI_Barrier") XX(IBARRIER, "MPI_Ibarrier")  \
  XX(BCAST, "MPI_Bcast") XX(IBCAST, "MPI_Ibcast")          \
  XX(REDUCE, "MPI_Reduce") XX(IREDUCE, "MPI_Ireduce")      \
  XX(ALLREDUCE, "MPI_Allreduce")                           \
  XX(IALLREDUCE, "MPI_Iallreduce")                         \
  XX(GATHER, "MPI_Gather") XX(IGATHER, "MPI_Igather")      \
  XX(GATHERV, "MPI_Gatherv") XX(IGATHERV, "MPI_Igatherv")  \
  XX(SCATTER, "MPI_Scatter") XX(ISCATTER, "MPI_Iscatter")  \
  XX(SCATTERV, "MPI_Scatterv")                             \
  XX(ISCATTERV, "MPI_Iscatterv")                           \
  XX(ALLGATHER, "MPI_Allgather")                           \
  XX(IALLGATHER, "MPI_Iallgather")                         \
  XX(ALLGATHERV, "MPI_Allgatherv")                         \
  XX(IALLGATHERV, "MPI_Iallgatherv")                       \
  XX(ALLTOALL, "MPI_Alltoall")                             \
  XX(IALLTOALL, "MPI_Ialltoall")                           \
  XX(ALLTOALLV, "MPI_Alltoallv")                           \
  XX(IALLTOALLV, "MPI_Ialltoallv")                         \
  XX(REDUCE_SCATTER, "MPI_Reduce_scatter")                 \
  XX(IREDUCE_SCATTER, "MPI_Ireduce_scatter")               \
  XX(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block")     \
  XX(IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block")   \
  XX(SCAN, "MPI_Scan") XX(ISCAN, "MPI_Iscan")              \
  XX(EXSCAN, "MPI_Exscan") XX(IEXSCAN, "MPI_Iexscan")      \
  XX(PUT, "MPI_Put") XX(GET, "MPI_Get")                    \
  XX(ACCUMULATE, "MPI_Accumulate")                         \
  XX(WIN_FENCE, "MPI_Win_fence")                           \
  XX(WIN_LOCK, "MPI_Win_lock") XX(WIN_UNLOCK, "MPI_Win_unlock") \
  XX(FILE_WRITE, "MPI_File_write") XX(FILE_READ, "MPI_File_read") \
  XX(FILE_WRITE_AT, "MPI_File_write_at")                   \
  XX(FILE_READ_AT, "MPI_File_read_at")                     \
  XX(FILE_WRITE_ALL, "MPI_File_write_all")                 \
  XX(FILE_READ_ALL, "MPI_File_read_all")                   \
  XX(FILE_WRITE_AT_ALL, "MPI_File_write_at_all")           \
  XX(FILE_READ_AT_ALL, "MPI_File_read_at_all")           \
  XX(FILE_OPEN, "MPI_File_open") XX(FILE_CLOSE, "MPI_File_close") \
  XX(FILE_SET_VIEW, "MPI_File_set_view")                   \
  XX(FILE_SET_SIZE, "MPI_File_set_size")                   \
  XX(FILE_SYNC, "MPI_File_sync") XX(FILE_SEEK, "MPI_File_seek") \
  XX(FILE_IWRITE, "MPI_File_iwrite") XX(FILE_IREAD, "MPI_File_iread") \
  XX(FILE_IWRITE_AT, "MPI_File_iwrite_at")                 \
  XX(FILE_IREAD_AT, "MPI_File_iread_at")                   \
  XX(FILE_IWRITE_ALL, "MPI_File_iwrite_all")               \
  XX(FILE_IREAD_ALL, "MPI_File_iread_all")                 \
  XX(FILE_IWRITE_AT_ALL, "MPI_File_iwrite_at_all")         \
  XX(FILE_IREAD_AT_ALL, "MPI_File_iread_at_all")           \
  XX(FILE_WRITE_SHARED, "MPI_File_write_shared")           \
  XX(FILE_READ_SHARED, "MPI_File_read_shared")             \
  XX(FILE_IWRITE_SHARED, "MPI_File_iwrite_shared")         \
  XX(FILE_IREAD_SHARED, "MPI_File_iread_shared")           \
  XX(FILE_WRITE_ORDERED, "MPI_File_write_ordered")         \
  XX(FILE_READ_ORDERED, "MPI_File_read_ordered")         \
  XX(FILE_WRITE_ALL_BEGIN, "MPI_File_write_all_begin")     \
  XX(FILE_WRITE_ALL_END, "MPI_File_write_all_end")         \
  XX(FILE_READ_ALL_BEGIN, "MPI_File_read_all_begin")       \
  XX(FILE_READ_ALL_END, "MPI_File_read_all_end")           \
  XX(FILE_WRITE_AT_ALL_BEGIN, "MPI_File_write_at_all_begin") \
  XX(FILE_WRITE_AT_ALL_END, "MPI_File_write_at_all_end")   \
  XX(FILE_READ_AT_ALL_BEGIN, "MPI_File_read_at_all_begin") \
  XX(FILE_READ_AT_ALL_END, "MPI_File_read_at_all_end")     \
  XX(FILE_WRITE_ORDERED_BEGIN, "MPI_File_write_ordered_begin") \
  XX(FILE_WRITE_ORDERED_END, "MPI_File_write_ordered_end") \
  XX(FILE_READ_ORDERED_BEGIN, "MPI_File_read_ordered_begin") \
  XX(FILE_READ_ORDERED_END, "MPI_File_read_ordered_end")   \
  XX(FILE_DELETE, "MPI_File_delete")                       \
  XX(FILE_GET_SIZE, "MPI_File_get_size")                   \
  XX(FILE_PREALLOCATE, "MPI_File_preallocate")
/* clang-format on */
typedef enum sp_mpi_call {
#define SP__XX(id, name) SP_MPI_CALL_##id,
  SP_MPI_CALLS(SP__XX)
#undef SP__XX
      SP_MPI_NCALLS
} sp_mpi_call_t;

/* The first MPI-IO call of SP_MPI_CALLS: from it on, calls are recorded
 * with profile_io too (mpi_profile_io.c). */
#define SP_MPI_CALL_FILE_FIRST SP_MPI_CALL_FILE_WRITE

/* The region of an MPI call, or -1 when MPI calls are not being recorded. */
SP_HIDDEN int sp__mpi_call_handle(sp_mpi_call_t call);
/* Its region name ("MPI_File_write_at"). */
SP_HIDDEN const char *sp__mpi_call_name(sp_mpi_call_t call);

/* Times `call` as region id and stores its bytes and peer, evaluated after
 * the stop stamp and only when the call was recorded; rc is returned. Off,
 * a wrapper costs one load and branch more than the PMPI call. */
#define SP_MPI_CALL(id, call, bytes, peer)                   \
  int sp_h_ = sp__mpi_call_handle(SP_MPI_CALL_##id);         \
  if (SP_LIKELY(sp_h_ < 0)) return call;                     \
  int sp_on_ = sp__mpi_begin(sp_h_);                         \
  int sp_rc_ = call;                                         \
  sp_stop(sp_h_);                                            \
  if (sp_on_) sp__mpi_note(sp_h_, (bytes), (int32_t)(peer)); \
  return sp_rc_

/* The same with the call's tag (-1: none) and communicator (mpi_comm_ids.c). */
#define SP_MPI_CALL_TC(id, call, bytes, peer, tag, comm)                                      \
  int sp_h_ = sp__mpi_call_handle(SP_MPI_CALL_##id);                                          \
  if (SP_LIKELY(sp_h_ < 0)) return call;                                                      \
  int sp_on_ = sp__mpi_begin(sp_h_);                                                          \
  int sp_rc_ = call;                                                                          \
  sp_stop(sp_h_);                                                                             \
  if (sp_on_) sp__mpi_note_tc(sp_h_, (bytes), (int32_t)(peer), (tag), sp__mpi_comm_id(comm)); \
  return sp_rc_

/* ---- helpers for the values (mpi_profile.c) ---- */
/* count x the size of type; 0 for MPI_DATATYPE_NULL or a size MPI refuses. */
SP_HIDDEN int64_t sp__mpi_tbytes(int64_t count, MPI_Datatype type);
/* Sum of counts[0..n) x the size of type. */
SP_HIDDEN int64_t sp__mpi_vbytes(const int *counts, int n, MPI_Datatype type);
/* Ranks on the other side of comm: its size, or the remote group's size
 * for an intercommunicator. */
SP_HIDDEN int sp__mpi_npeers(MPI_Comm comm);
SP_HIDDEN int sp__mpi_rank(MPI_Comm comm);
/* 1 when this rank is root of a rooted collective over comm. */
SP_HIDDEN int sp__mpi_is_root(int root, MPI_Comm comm);
/* The rank a message went to: dest itself, -1 for MPI_PROC_NULL. */
static inline int32_t sp__mpi_peer(int dest) { return dest >= 0 ? dest : -1; }
/* The bytes and source a receive's status tells (0 and -1 for
 * MPI_PROC_NULL or an empty status). */
SP_HIDDEN void sp__mpi_status_got(const MPI_Status *st, int64_t *bytes, int32_t *peer);

#endif
