/* mpi_profile_p2p.c - point-to-point MPI calls as regions, with bytes and peer.
 *
 * Sends store the bytes they send and their destination at the call that
 * starts them (MPI_Isend too). Receives store what the status says was
 * received: MPI_Recv at once, a nonblocking receive at the wait or test
 * that completes it (MPI_Irecv itself stores 0 and -1), so a wildcard
 * receive names the source it matched. A receive with MPI_STATUS_IGNORE
 * is given a status of the wrapper's own to read. */
#include <stdint.h>
#include <stdlib.h>

#include "mpi_profile.h"
#include "mpi_requests.h"

#define SP_SEND(ID, NAME)                                                           \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,  \
                 MPI_Comm comm) {                                                   \
    SP_MPI_CALL_TC(ID, PMPI_##NAME(buf, count, type, dest, tag, comm),              \
                   dest >= 0 ? sp__mpi_tbytes(count, type) : 0, sp__mpi_peer(dest), \
                   dest >= 0 ? tag : -1, comm);                                     \
  }
/* A nonblocking send is remembered until its wait (mpi_requests.c), with
 * the index of its call, for the completion record. */
static int sp_isend(int h, int on, int rc, const MPI_Request *req, int64_t bytes, int dest, int tag,
                    MPI_Comm comm) {
  const int32_t cid = sp__mpi_comm_id(comm);
  const int64_t call = on ? sp__mpi_x_count(h) : -1;
  if (on) sp__mpi_note_tc(h, bytes, sp__mpi_peer(dest), dest >= 0 ? tag : -1, cid);
  if (rc == MPI_SUCCESS && dest >= 0) {
    const sp_req_val_t v = {bytes, call, dest, 0, tag, cid, h, sp__mpi_thread()};
    sp__mpi_req_post(*req, &v);
  }
  return rc;
}
#define SP_ISEND(ID, NAME)                                                                         \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,  \
                 MPI_Request *req) {                                                               \
    int h = sp__mpi_call_handle(SP_MPI_CALL_##ID);                                                 \
    if (SP_LIKELY(h < 0)) return PMPI_##NAME(buf, count, type, dest, tag, comm, req);              \
    int on = sp__mpi_begin(h);                                                                     \
    int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                  \
    sp_stop(h);                                                                                    \
    return sp_isend(h, on, rc, req, dest >= 0 ? sp__mpi_tbytes(count, type) : 0, dest, tag, comm); \
  }
SP_SEND(SEND, Send)
SP_SEND(BSEND, Bsend)
SP_SEND(SSEND, Ssend)
SP_SEND(RSEND, Rsend)
SP_ISEND(ISEND, Isend)
SP_ISEND(IBSEND, Ibsend)
SP_ISEND(ISSEND, Issend)
SP_ISEND(IRSEND, Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_RECV);
  if (SP_LIKELY(h < 0)) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int on = sp__mpi_begin(h);
  int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  sp_stop(h);
  int64_t bytes;
  int32_t peer;
  sp__mpi_status_got(rc == MPI_SUCCESS ? st : NULL, &bytes, &peer);
  if (on) sp__mpi_note_tc(h, bytes, peer, peer >= 0 ? st->MPI_TAG : -1, sp__mpi_comm_id(comm));
  return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_IRECV);
  if (SP_LIKELY(h < 0)) return PMPI_Irecv(buf, count, type, source, tag, comm, req);
  int on = sp__mpi_begin(h);
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  sp_stop(h);
  const int32_t cid = sp__mpi_comm_id(comm);
  const int64_t call = on ? sp__mpi_x_count(h) : -1;
  /* The tag asked for (the one matched is the completing call's to tell). */
  if (on) sp__mpi_note_tc(h, 0, -1, source != MPI_PROC_NULL && tag >= 0 ? tag : -1, cid);
  if (rc == MPI_SUCCESS) {
    const sp_req_val_t v = {0, call, -1, 1, -1, cid, h, sp__mpi_thread()};
    sp__mpi_req_post(*req, &v);
  }
  return rc;
}

/* Persistent requests: each *_init call remembers what its request sends
 * (or that it receives), MPI_Start stores that as MPI_Isend and MPI_Irecv
 * would, and the wait or test completing a started receive stores its
 * bytes and source (issue 43 item 13). Only requests made while MPI calls
 * are recorded are known; MPI_Request_free forgets one. */
#define SP_SEND_INIT(NAME)                                                                        \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                 MPI_Request *req) {                                                              \
    int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                 \
    if (rc == MPI_SUCCESS && sp__mpi_call_handle(SP_MPI_CALL_START) >= 0) {                       \
      const sp_req_val_t v = {dest >= 0 ? sp__mpi_tbytes(count, type) : 0,                        \
                              -1,                                                                 \
                              sp__mpi_peer(dest),                                                 \
                              0,                                                                  \
                              tag,                                                                \
                              sp__mpi_comm_id(comm),                                              \
                              -1,                                                                 \
                              -1};                                                                \
      sp__mpi_req_persist(*req, &v);                                                              \
    }                                                                                             \
    return rc;                                                                                    \
  }
SP_SEND_INIT(Send_init)
SP_SEND_INIT(Bsend_init)
SP_SEND_INIT(Ssend_init)
SP_SEND_INIT(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *req) {
  int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
  if (rc == MPI_SUCCESS && sp__mpi_call_handle(SP_MPI_CALL_START) >= 0) {
    const sp_req_val_t v = {0, -1, -1, 1, -1, sp__mpi_comm_id(comm), -1, -1};
    sp__mpi_req_persist(*req, &v);
  }
  return rc;
}

int MPI_Request_free(MPI_Request *req) {
  MPI_Request r = *req;
  int rc = PMPI_Request_free(req);
  if (rc == MPI_SUCCESS) sp__mpi_req_forget(r);
  return rc;
}

int MPI_Start(MPI_Request *req) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_START);
  if (SP_LIKELY(h < 0)) return PMPI_Start(req);
  MPI_Request r = *req;
  int on = sp__mpi_begin(h);
  int rc = PMPI_Start(req);
  sp_stop(h);
  int64_t bytes = 0;
  int32_t peer = -1, tag = -1, comm = -1;
  if (rc == MPI_SUCCESS)
    sp__mpi_req_start(r, h, on ? sp__mpi_x_count(h) : -1, &bytes, &peer, &tag, &comm);
  if (on) sp__mpi_note_tc(h, bytes, peer, tag, comm);
  return rc;
}

/* The bytes of the sends started; the peer, tag and communicator when
 * they all have the same. */
int MPI_Startall(int n, MPI_Request reqs[]) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_STARTALL);
  if (SP_LIKELY(h < 0)) return PMPI_Startall(n, reqs);
  int on = sp__mpi_begin(h);
  int rc = PMPI_Startall(n, reqs);
  sp_stop(h);
  int64_t bytes = 0;
  int32_t one[3] = {-1, -1, -1}; /* peer, tag, comm */
  int many[3] = {0, 0, 0};
  const int64_t call = on ? sp__mpi_x_count(h) : -1;
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
    int64_t b;
    int32_t v[3];
    if (!sp__mpi_req_start(reqs[i], h, call, &b, &v[0], &v[1], &v[2])) continue;
    bytes += b;
    for (int k = 0; k < 3; k++)
      if (v[k] >= 0 && v[k] != one[k]) one[k] = many[k]++ == 0 ? v[k] : -1;
  }
  if (on) sp__mpi_note_tc(h, bytes, one[0], one[1], one[2]);
  return rc;
}

/* After a Sendrecv or Sendrecv_replace, when the call was recorded (on):
 * notes the bytes sent (count of type, to dest, with stag) plus received;
 * the peer (tag) when both sides have the same partner (tag), else -1.
 * The type's size is asked only then, so an unrecorded call costs nothing more. */
static void sp_sendrecv_note(int h, int on, int rc, const MPI_Status *st, int dest, int stag,
                             int count, MPI_Datatype type, MPI_Comm comm) {
  if (!on) return;
  int64_t rbytes;
  int32_t src;
  sp__mpi_status_got(rc == MPI_SUCCESS ? st : NULL, &rbytes, &src);
  const int64_t sbytes = dest >= 0 ? sp__mpi_tbytes(count, type) : 0;
  const int32_t rtag = src >= 0 ? st->MPI_TAG : -1;
  const int32_t tag = dest < 0 ? rtag : (src < 0 || rtag == stag) ? stag : -1;
  const int32_t cid = sp__mpi_comm_id(comm);
  /* the halves first: the call's index is the count before its note */
  sp__mpi_sendrecv_done(h, sp__mpi_x_count(h), cid, dest, stag, sbytes, src, rtag, rbytes);
  sp__mpi_note_tc(h, rbytes + sbytes,
                  dest < 0                   ? src
                  : (src < 0 || src == dest) ? dest
                                             : -1,
                  tag, cid);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_SENDRECV);
  if (SP_LIKELY(h < 0))
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                         status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int on = sp__mpi_begin(h);
  int rc =
      PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
  sp_stop(h);
  sp_sendrecv_note(h, on, rc, st, dest, stag, scount, stype, comm);
  return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_SENDRECV_REPLACE);
  if (SP_LIKELY(h < 0))
    return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int on = sp__mpi_begin(h);
  int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, st);
  sp_stop(h);
  sp_sendrecv_note(h, on, rc, st, dest, stag, count, type, comm);
  return rc;
}

/* A probe moves no payload: 0 bytes, the source it found. */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_PROBE);
  if (SP_LIKELY(h < 0)) return PMPI_Probe(source, tag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int on = sp__mpi_begin(h);
  int rc = PMPI_Probe(source, tag, comm, st);
  sp_stop(h);
  const int got = rc == MPI_SUCCESS && st->MPI_SOURCE >= 0;
  if (on)
    sp__mpi_note_tc(h, 0, got ? st->MPI_SOURCE : -1, got ? st->MPI_TAG : -1, sp__mpi_comm_id(comm));
  return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  int h = sp__mpi_call_handle(SP_MPI_CALL_IPROBE);
  if (SP_LIKELY(h < 0)) return PMPI_Iprobe(source, tag, comm, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  int on = sp__mpi_begin(h);
  int rc = PMPI_Iprobe(source, tag, comm, flag, st);
  sp_stop(h);
  const int got = rc == MPI_SUCCESS && *flag && st->MPI_SOURCE >= 0;
  if (on)
    sp__mpi_note_tc(h, 0, got ? st->MPI_SOURCE : -1, got ? st->MPI_TAG : -1, sp__mpi_comm_id(comm));
  return rc;
}
