/* mpi_requests.h - receive requests pending until a wait or test, and
 * persistent requests (profile_mpi). */
#ifndef SP_MPI_REQUESTS_H
#define SP_MPI_REQUESTS_H

#include <mpi.h>

#include "sp_internal.h"

/* ---- mpi_requests.c: receive requests until a wait or test completes them ---- */
/* Remembers req as a pending receive (Irecv, or Start of a Recv_init). */
SP_HIDDEN void sp__mpi_req_recv(MPI_Request req);
/* Before a wait or test: takes every pending receive among reqs[0..n)
 * out of the table, taken[i] = 1 for each (NULL taken: n is 1, the result
 * returned). The number taken. Out before the call, since MPI frees a
 * completed request inside it and another thread's MPI_Irecv may get the
 * same handle before this call returns (issue 43 item 7). */
SP_HIDDEN int sp__mpi_req_take(const MPI_Request *reqs, int n, unsigned char *taken);
/* After it: before[i] of each taken request that the call did not
 * complete back into the table (still the caller's, so no other thread
 * holds that handle). done[i] 1 for each completed one (NULL: none). */
SP_HIDDEN void sp__mpi_req_put_back(const MPI_Request *before, const unsigned char *taken,
                                    const unsigned char *done, int n);
/* The values of the completed requests: for each j of 0..m, request
 * i = idx[j] (i = j when idx is NULL) that was taken adds the bytes and
 * source of status st[idx ? j : i]; *peer becomes the one source, or -1
 * when there were several or none. */
SP_HIDDEN void sp__mpi_req_got(const unsigned char *taken, const int *idx, int m,
                               const MPI_Status *st, int64_t *bytes, int32_t *peer);

/* ---- persistent requests (MPI_Send_init, MPI_Recv_init, ...) ---- */
/* Remembers a persistent request: a receive (recv 1) or a send of bytes to peer. */
SP_HIDDEN void sp__mpi_req_persist(MPI_Request req, int recv, int64_t bytes, int32_t peer);
/* At MPI_Start: 1 and what req sends (a receive: 0 bytes, peer -1, and
 * req becomes a pending receive) when req is a persistent request we
 * know, else 0. */
SP_HIDDEN int sp__mpi_req_start(MPI_Request req, int64_t *bytes, int32_t *peer);
/* MPI_Request_free: forgets req (persistent or a pending receive). */
SP_HIDDEN void sp__mpi_req_forget(MPI_Request req);

#endif
