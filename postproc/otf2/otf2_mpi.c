/* otf2_mpi.c - OTF2 MPI events from the bytes and peer of the MPI calls.
 *
 * A profile recorded with SCOPE_PROFILER_PROFILE_MPI=1 stores, per call of
 * an MPI call region, its payload (bytes, -1 unknown) and partner rank
 * (peer, -1 none, several or a collective). Inside that call's ENTER and
 * LEAVE, on its location, these become:
 *   - MPI_Send/Bsend/Ssend/Rsend: MpiSend at the ENTER stamp;
 *   - MPI_Isend: MpiIsend and MpiIsendComplete at the ENTER stamp (the
 *     wait that completes it stores nothing of the send; requestID a
 *     running counter per location);
 *   - MPI_Recv and the waits/tests that completed receives from one source
 *     (peer >= 0, bytes > 0): MpiRecv at the LEAVE stamp;
 *   - collectives (bytes >= 0), blocking or I-form: MpiCollectiveBegin
 *     at the ENTER stamp, MpiCollectiveEnd at the LEAVE stamp, root the
 *     peer of a rooted one (Bcast, Reduce, Gather(v), Scatter(v): the C
 *     wrappers store it), else undefined, sizeSent = sizeReceived = bytes
 *     (the core stores one figure per call).
 * Communicator: the call's own (otf2_comms.c), whose group maps the peer,
 * a rank of it, to the partner's process; MPI_COMM_WORLD (definition 0)
 * when the file does not record it. Tag: the recorded one, 0 when none.
 * MPI_Sendrecv(_replace) is left without message events: it stores sent
 * plus received bytes and one peer only when both partners agree, so
 * neither message can be told apart. Nor do probes, one-sided calls or
 * MPI-IO give messages. */
#include <string.h>

#include "otf2_internal.h"

static const struct {
  const char *name; /* after "MPI_", and after the 'I' of an I-form */
  OTF2_CollectiveOp op;
} sp_colls[] = {
    {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},
    {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
    {"Gather", OTF2_COLLECTIVE_OP_GATHER},
    {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
    {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},
    {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
    {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
    {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
    {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
    {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
    {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
    {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
    {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
    {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
    {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
    {"Scan", OTF2_COLLECTIVE_OP_SCAN},
    {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
};

int sp__otf2_mpi_kind(const char *name, int *op) {
  static const char *const sends[] = {"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend"};
  static const char *const recvs[] = {"MPI_Recv",    "MPI_Wait",     "MPI_Waitall",
                                      "MPI_Waitany", "MPI_Waitsome", "MPI_Test",
                                      "MPI_Testall", "MPI_Testany",  "MPI_Testsome"};
  *op = 0;
  if (strncmp(name, "MPI_", 4) != 0) return SP_OTF2_MPI_NONE;
  for (size_t i = 0; i < sizeof sends / sizeof sends[0]; i++)
    if (!strcmp(name, sends[i])) return SP_OTF2_MPI_SEND;
  if (!strcmp(name, "MPI_Isend")) return SP_OTF2_MPI_ISEND;
  for (size_t i = 0; i < sizeof recvs / sizeof recvs[0]; i++)
    if (!strcmp(name, recvs[i])) return SP_OTF2_MPI_RECV;
  for (int pass = 0; pass < 2; pass++) {
    const char *s = name + 4;
    if (pass == 1) {
      if (*s != 'I') break;
      s++;
    }
    for (size_t i = 0; i < sizeof sp_colls / sizeof sp_colls[0]; i++)
      if (!strcmp(s, sp_colls[i].name)) {
        *op = (int)sp_colls[i].op;
        return SP_OTF2_MPI_COLL;
      }
  }
  return SP_OTF2_MPI_NONE;
}

/* The event at the ENTER stamp t, after the ENTER. */
OTF2_ErrorCode sp__otf2_mpi_enter(OTF2_EvtWriter *w, uint64_t t, int kind, const sp_otf2_msg_t *m,
                                  uint64_t *request, uint64_t *nevents) {
  OTF2_ErrorCode e = OTF2_SUCCESS;
  const int64_t bytes = m->bytes;
  const int32_t peer = m->peer;
  const uint32_t tag = m->tag >= 0 ? (uint32_t)m->tag : 0;
  if (kind == SP_OTF2_MPI_COLL && bytes >= 0) {
    e = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
    *nevents += 1;
  } else if (kind == SP_OTF2_MPI_SEND && peer >= 0 && bytes >= 0) {
    e = OTF2_EvtWriter_MpiSend(w, NULL, t, (uint32_t)peer, m->comm, tag, (uint64_t)bytes);
    *nevents += 1;
  } else if (kind == SP_OTF2_MPI_ISEND && peer >= 0 && bytes >= 0) {
    uint64_t id = (*request)++;
    e = OTF2_EvtWriter_MpiIsend(w, NULL, t, (uint32_t)peer, m->comm, tag, (uint64_t)bytes, id);
    if (e == OTF2_SUCCESS) e = OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, id);
    *nevents += 2;
  }
  return e;
}

/* The event at the LEAVE stamp t, before the LEAVE. */
OTF2_ErrorCode sp__otf2_mpi_leave(OTF2_EvtWriter *w, uint64_t t, int kind, int op,
                                  const sp_otf2_msg_t *m, uint64_t *nevents) {
  OTF2_ErrorCode e = OTF2_SUCCESS;
  const int64_t bytes = m->bytes;
  const int32_t peer = m->peer;
  if (kind == SP_OTF2_MPI_COLL && bytes >= 0) {
    uint32_t root = peer >= 0 ? (uint32_t)peer : OTF2_UNDEFINED_UINT32;
    e = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)op, m->comm, root,
                                        (uint64_t)bytes, (uint64_t)bytes);
    *nevents += 1;
  } else if (kind == SP_OTF2_MPI_RECV && peer >= 0 && bytes > 0) {
    e = OTF2_EvtWriter_MpiRecv(w, NULL, t, (uint32_t)peer, m->comm,
                               m->tag >= 0 ? (uint32_t)m->tag : 0, (uint64_t)bytes);
    *nevents += 1;
  }
  return e;
}
