/* mpi_requests.h - receive requests pending until a wait or test (profile_mpi). */
#ifndef SP_MPI_REQUESTS_H
#define SP_MPI_REQUESTS_H

#include <mpi.h>

#include "sp_internal.h"

/* ---- mpi_requests.c: receive requests until a wait or test completes them ---- */
/* Remembers req as a pending receive (Irecv). */
SP_HIDDEN void sp__mpi_req_recv(MPI_Request req);
/* 1 when any of reqs[0..n) is a pending receive. */
SP_HIDDEN int sp__mpi_req_any_recv(const MPI_Request *reqs, int n);
/* For each i of idx[0..n) (all of 0..n-1 when idx is NULL) whose request
 * before[i] has completed (status st[i]), forgets it and, when it was a
 * receive, adds its bytes and source; *peer becomes the one source, or -1
 * when there were several. */
SP_HIDDEN void sp__mpi_req_done(const MPI_Request *before, const int *idx, int n,
                                const MPI_Status *st, int64_t *bytes, int32_t *peer);

#endif
