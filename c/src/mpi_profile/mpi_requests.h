/* mpi_requests.h - receive requests pending until a wait or test, and
 * persistent requests (profile_mpi). */
#ifndef SP_MPI_REQUESTS_H
#define SP_MPI_REQUESTS_H

#include <mpi.h>

#include "sp_internal.h"

/* What a pending request is (mpi_requests.c): a receive, or a send with
 * its bytes; and, for the completion record (mpi_extra.h sp_mpi_done_t),
 * its tag, communicator and the call that posted it. */
typedef struct sp_req_val {
  int64_t bytes;                    /* a send's bytes (count x type size) */
  int64_t post_call;                /* the posting call's index on post_thread; -1 not recorded */
  int32_t peer;                     /* a send's destination; -1 for a receive */
  int32_t recv;                     /* 1: a receive */
  int32_t tag;                      /* a send's tag; -1 for a receive (the status tells it) */
  int32_t comm;                     /* the communicator's id */
  int32_t post_region, post_thread; /* region handles; thread index */
} sp_req_val_t;

/* ---- mpi_requests.c: requests until a wait or test completes them ---- */
/* Remembers req as a pending receive or send (Irecv, Isend & co., or Start
 * of a persistent request). */
SP_HIDDEN void sp__mpi_req_post(MPI_Request req, const sp_req_val_t *v);
/* Before a wait or test: takes every pending request among reqs[0..n)
 * out of the table, taken[i] = 1 and vals[i] its values for each (NULL
 * taken: n is 1, the result returned). The number taken. Out before the
 * call, since MPI frees a completed request inside it and another
 * thread's MPI_Irecv may get the same handle before this call returns
 * (issue 43 item 7). */
SP_HIDDEN int sp__mpi_req_take(const MPI_Request *reqs, int n, unsigned char *taken,
                               sp_req_val_t *vals);
/* After it: before[i] of each taken request that the call did not
 * complete back into the table with vals[i] (still the caller's, so no
 * other thread holds that handle). done[i] 1 for each completed one
 * (NULL: none). */
SP_HIDDEN void sp__mpi_req_put_back(const MPI_Request *before, const unsigned char *taken,
                                    const unsigned char *done, const sp_req_val_t *vals, int n);
/* The completed requests: for each j of 0..m, request i = idx[j] (i = j
 * when idx is NULL) that was taken, with status st[idx ? j : i]. A
 * receive adds its bytes and source to *bytes and *peer (the one source,
 * or -1 when several or none); each, receive or send, is one completion
 * record of the wait call `wait_call` of region `wait_region`. */
SP_HIDDEN void sp__mpi_req_got(const unsigned char *taken, const sp_req_val_t *vals, const int *idx,
                               int m, const MPI_Status *st, int32_t wait_region, int64_t wait_call,
                               int64_t *bytes, int32_t *peer);

/* After a recorded MPI_Sendrecv(_replace), call `call` of region h: its two
 * halves as completions of the call itself (the send to dest with stag,
 * the receive from src with rtag, from its status), when the call's own
 * peer and tag cannot say both: two partners, two tags, or one half with
 * MPI_PROC_NULL (dest or src < 0). The wait states pair each half then
 * (docs/wait-states.md). Nothing when call < 0 (not recorded). */
SP_HIDDEN void sp__mpi_sendrecv_done(int32_t h, int64_t call, int32_t comm, int32_t dest,
                                     int32_t stag, int64_t sbytes, int32_t src, int32_t rtag,
                                     int64_t rbytes);

/* ---- persistent requests (MPI_Send_init, MPI_Recv_init, ...) ---- */
/* Remembers a persistent request: what it will post at each start
 * (post_* are set by the start). */
SP_HIDDEN void sp__mpi_req_persist(MPI_Request req, const sp_req_val_t *v);
/* At MPI_Start / MPI_Startall (region post_region, call post_call):
 * 1 and what req sends, its tag and communicator id (a receive: 0 bytes,
 * peer and tag -1) when req is a persistent request we know, which becomes
 * pending; else 0 (and -1s). */
SP_HIDDEN int sp__mpi_req_start(MPI_Request req, int32_t post_region, int64_t post_call,
                                int64_t *bytes, int32_t *peer, int32_t *tag, int32_t *comm);
/* MPI_Request_free: forgets req (persistent or pending). */
SP_HIDDEN void sp__mpi_req_forget(MPI_Request req);

#endif
