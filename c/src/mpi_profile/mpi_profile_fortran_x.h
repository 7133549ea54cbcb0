/* mpi_profile_fortran_x.h - the bytes and peer of Fortran MPI calls (mpi_profile_fortran_x.c). */
#ifndef SP_MPI_PROFILE_FORTRAN_X_H
#define SP_MPI_PROFILE_FORTRAN_X_H

#include "mpi_profile.h"
#include "mpi_profile_coll.h"
#include "mpi_requests.h"

/* How a call's arguments give its values (one kind per argument list). */
typedef enum sp_fx_kind {
  SP_FX_NONE,
  SP_FX_SEND,
  SP_FX_RECV,
  SP_FX_IRECV,
  SP_FX_SENDRECV,
  SP_FX_SENDRECV_REPLACE,
  SP_FX_PROBE,
  SP_FX_IPROBE,
  SP_FX_WAIT,
  SP_FX_TEST,
  SP_FX_WAITALL,
  SP_FX_TESTALL,
  SP_FX_WAITANY,
  SP_FX_TESTANY,
  SP_FX_WAITSOME,
  SP_FX_START,
  SP_FX_STARTALL,
  SP_FX_BCAST,
  SP_FX_REDUCE,
  SP_FX_TWICE,
  SP_FX_GATHER,
  SP_FX_GATHERV,
  SP_FX_SCATTER,
  SP_FX_SCATTERV,
  SP_FX_ALLGATHER,
  SP_FX_ALLGATHERV,
  SP_FX_ALLTOALL,
  SP_FX_ALLTOALLV,
  SP_FX_REDUCE_SCATTER,
  SP_FX_RSBLOCK,
  SP_FX_RMA,
  SP_FX_WIN_LOCK,
  SP_FX_WIN_UNLOCK
} sp_fx_kind_t;

#define SP_FX_STATUS_INTS 16 /* room for one Fortran status (Open MPI's has 6) */

/* What passes from before a call to after it. */
typedef struct sp_fx {
  int64_t bytes;
  int32_t peer;
  int32_t tag, comm;               /* the call's tag and communicator id, -1: none */
  int32_t code;                    /* the call's SP_MPI_CALL_* code (set by the wrapper) */
  int32_t h;                       /* its region (set by the wrapper) */
  int64_t call;                    /* its index among its region's calls, -1: not recorded */
  sp_req_val_t one_val;            /* what the single request is */
  sp_req_val_t *vals;              /* what the n requests are (malloc'd) */
  int pending;                     /* a wait/test had a receive pending (taken out) */
  int n;                           /* its requests */
  MPI_Request one;                 /* a single request, before the call */
  MPI_Request *reqs;               /* n requests before the call (malloc'd) */
  unsigned char *taken;            /* 2n marks: taken out of the table, completed (malloc'd) */
  MPI_Fint *own_sts;               /* n statuses of the wrapper's own (malloc'd), or NULL */
  MPI_Fint own[SP_FX_STATUS_INTS]; /* one status of the wrapper's own */
} sp_fx_t;

/* Before the call: may replace a status argument in a; after (x->code and
 * x->call set): x->bytes, x->peer, x->tag, x->comm, the requests posted
 * and completed (mpi_requests.h), and frees what before took. */
SP_HIDDEN void sp__fx_before(sp_fx_kind_t kind, void **a, sp_fx_t *x);
SP_HIDDEN void sp__fx_after(sp_fx_kind_t kind, void **a, sp_fx_t *x);

/* After a Fortran *_init call (a[6] its request; recv 1 for Recv_init):
 * remembers the persistent request as the C wrappers do. */
SP_HIDDEN void sp__fx_persist(void **a, int recv);

#endif
