/* mpi_profile_coll.c - collective MPI calls as regions, with bytes.
 *
 * A collective's peer is -1, but a rooted one's (Bcast, Reduce, Gather(v),
 * Scatter(v) and their nonblocking forms) is the root, which the wait
 * states need (issue 50: Late Broadcast, Early Reduce). Its bytes are what this rank's buffers send
 * plus what they receive, as the call's arguments describe them where
 * they are significant on this rank (docs/automatic-regions.md):
 * Bcast count (the root sends it, the others receive it); Reduce count,
 * twice at the root; Allreduce, Scan, Exscan twice count; Gather(v) the
 * send count, plus every receive count at the root; Scatter(v) the
 * receive count, plus every send count at the root; Allgather(v) the send
 * count plus every receive count; Alltoall(v) every send and receive
 * count; Reduce_scatter the sum of recvcounts plus this rank's own;
 * Reduce_scatter_block (ranks + 1) x recvcount; each times its type's
 * size. MPI_IN_PLACE leaves out the send side of gathers and all-to-alls
 * (the data stays in the receive buffer). The nonblocking forms store the
 * same when they start. */
#include "mpi_profile.h"
#include "mpi_profile_coll.h"

#define SP_INPLACE(buf) ((buf) == MPI_IN_PLACE)

int64_t sp__mpi_b_bcast(int count, MPI_Datatype t) { return sp__mpi_tbytes(count, t); }

int64_t sp__mpi_b_reduce(const void *s, int count, MPI_Datatype t, int root, MPI_Comm c) {
  (void)s;
  if (root == MPI_PROC_NULL) return 0; /* an intercommunicator's idle root-group member */
  return sp__mpi_tbytes(count, t) * (sp__mpi_is_root(root, c) ? 2 : 1);
}

int64_t sp__mpi_b_twice(int count, MPI_Datatype t) { return 2 * sp__mpi_tbytes(count, t); }

int64_t sp__mpi_b_gather(const void *s, int sc, MPI_Datatype st, const int *rcs, int rc,
                         MPI_Datatype rt, int root, MPI_Comm c) {
  int is_root = sp__mpi_is_root(root, c);
  if (root == MPI_PROC_NULL) return 0;
  int64_t b = (is_root && SP_INPLACE(s)) || root == MPI_ROOT ? 0 : sp__mpi_tbytes(sc, st);
  if (is_root)
    b += rcs ? sp__mpi_vbytes(rcs, sp__mpi_npeers(c), rt)
             : sp__mpi_tbytes((int64_t)rc * sp__mpi_npeers(c), rt);
  return b;
}

int64_t sp__mpi_b_scatter(const int *scs, int sc, MPI_Datatype st, const void *r, int rc,
                          MPI_Datatype rt, int root, MPI_Comm c) {
  int is_root = sp__mpi_is_root(root, c);
  if (root == MPI_PROC_NULL) return 0;
  int64_t b = (is_root && SP_INPLACE(r)) || root == MPI_ROOT ? 0 : sp__mpi_tbytes(rc, rt);
  if (is_root)
    b += scs ? sp__mpi_vbytes(scs, sp__mpi_npeers(c), st)
             : sp__mpi_tbytes((int64_t)sc * sp__mpi_npeers(c), st);
  return b;
}

int64_t sp__mpi_b_allgather(const void *s, int sc, MPI_Datatype st, const int *rcs, int rc,
                            MPI_Datatype rt, MPI_Comm c) {
  int64_t b = SP_INPLACE(s) ? 0 : sp__mpi_tbytes(sc, st);
  return b + (rcs ? sp__mpi_vbytes(rcs, sp__mpi_npeers(c), rt)
                  : sp__mpi_tbytes((int64_t)rc * sp__mpi_npeers(c), rt));
}

int64_t sp__mpi_b_alltoall(const void *s, const int *scs, int sc, MPI_Datatype st, const int *rcs,
                           int rc, MPI_Datatype rt, MPI_Comm c) {
  int n = sp__mpi_npeers(c);
  int64_t b = rcs ? sp__mpi_vbytes(rcs, n, rt) : sp__mpi_tbytes((int64_t)rc * n, rt);
  if (!SP_INPLACE(s)) b += scs ? sp__mpi_vbytes(scs, n, st) : sp__mpi_tbytes((int64_t)sc * n, st);
  return b;
}

int64_t sp__mpi_b_reduce_scatter(const int *rcs, MPI_Datatype t, MPI_Comm c) {
  int me = sp__mpi_rank(c), n = sp__mpi_npeers(c);
  return sp__mpi_vbytes(rcs, n, t) + (me >= 0 && me < n ? sp__mpi_tbytes(rcs[me], t) : 0);
}

int64_t sp__mpi_b_reduce_scatter_block(int rc, MPI_Datatype t, MPI_Comm c) {
  return sp__mpi_tbytes((int64_t)rc * (sp__mpi_npeers(c) + 1), t);
}

/* Every collective names its communicator c; collectives have no tag. */
#define SP_MPI_CALL_C(id, call, bytes, peer) SP_MPI_CALL_TC(id, call, bytes, peer, -1, c)

/* Each blocking collective, then its nonblocking form (one more argument,
 * the request). */

int MPI_Barrier(MPI_Comm c) { SP_MPI_CALL_C(BARRIER, PMPI_Barrier(c), 0, -1); }
int MPI_Ibarrier(MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IBARRIER, PMPI_Ibarrier(c, req), 0, -1);
}
int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  SP_MPI_CALL_C(BCAST, PMPI_Bcast(buf, count, t, root, c), sp__mpi_b_bcast(count, t), sp__mpi_peer(root));
}
int MPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IBCAST, PMPI_Ibcast(buf, count, t, root, c, req), sp__mpi_b_bcast(count, t), sp__mpi_peer(root));
}
int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  SP_MPI_CALL_C(REDUCE, PMPI_Reduce(s, r, count, t, op, root, c),
                sp__mpi_b_reduce(s, count, t, root, c), sp__mpi_peer(root));
}
int MPI_Ireduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                MPI_Request *req) {
  SP_MPI_CALL_C(IREDUCE, PMPI_Ireduce(s, r, count, t, op, root, c, req),
                sp__mpi_b_reduce(s, count, t, root, c), sp__mpi_peer(root));
}
int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  SP_MPI_CALL_C(ALLREDUCE, PMPI_Allreduce(s, r, count, t, op, c), sp__mpi_b_twice(count, t), -1);
}
int MPI_Iallreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                   MPI_Request *req) {
  SP_MPI_CALL_C(IALLREDUCE, PMPI_Iallreduce(s, r, count, t, op, c, req), sp__mpi_b_twice(count, t),
                -1);
}
int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
               MPI_Comm c) {
  SP_MPI_CALL_C(GATHER, PMPI_Gather(s, sc, st, r, rc, rt, root, c),
                sp__mpi_b_gather(s, sc, st, NULL, rc, rt, root, c), sp__mpi_peer(root));
}
int MPI_Igather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
                MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IGATHER, PMPI_Igather(s, sc, st, r, rc, rt, root, c, req),
                sp__mpi_b_gather(s, sc, st, NULL, rc, rt, root, c), sp__mpi_peer(root));
}
int MPI_Gatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm c) {
  SP_MPI_CALL_C(GATHERV, PMPI_Gatherv(s, sc, st, r, rcs, displs, rt, root, c),
                sp__mpi_b_gather(s, sc, st, rcs, 0, rt, root, c), sp__mpi_peer(root));
}
int MPI_Igatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                 const int displs[], MPI_Datatype rt, int root, MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IGATHERV, PMPI_Igatherv(s, sc, st, r, rcs, displs, rt, root, c, req),
                sp__mpi_b_gather(s, sc, st, rcs, 0, rt, root, c), sp__mpi_peer(root));
}
int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
                MPI_Comm c) {
  SP_MPI_CALL_C(SCATTER, PMPI_Scatter(s, sc, st, r, rc, rt, root, c),
                sp__mpi_b_scatter(NULL, sc, st, r, rc, rt, root, c), sp__mpi_peer(root));
}
int MPI_Iscatter(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root,
                 MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(ISCATTER, PMPI_Iscatter(s, sc, st, r, rc, rt, root, c, req),
                sp__mpi_b_scatter(NULL, sc, st, r, rc, rt, root, c), sp__mpi_peer(root));
}
int MPI_Scatterv(const void *s, const int scs[], const int displs[], MPI_Datatype st, void *r,
                 int rc, MPI_Datatype rt, int root, MPI_Comm c) {
  SP_MPI_CALL_C(SCATTERV, PMPI_Scatterv(s, scs, displs, st, r, rc, rt, root, c),
                sp__mpi_b_scatter(scs, 0, st, r, rc, rt, root, c), sp__mpi_peer(root));
}
int MPI_Iscatterv(const void *s, const int scs[], const int displs[], MPI_Datatype st, void *r,
                  int rc, MPI_Datatype rt, int root, MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(ISCATTERV, PMPI_Iscatterv(s, scs, displs, st, r, rc, rt, root, c, req),
                sp__mpi_b_scatter(scs, 0, st, r, rc, rt, root, c), sp__mpi_peer(root));
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                  MPI_Comm c) {
  SP_MPI_CALL_C(ALLGATHER, PMPI_Allgather(s, sc, st, r, rc, rt, c),
                sp__mpi_b_allgather(s, sc, st, NULL, rc, rt, c), -1);
}
int MPI_Iallgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                   MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IALLGATHER, PMPI_Iallgather(s, sc, st, r, rc, rt, c, req),
                sp__mpi_b_allgather(s, sc, st, NULL, rc, rt, c), -1);
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                   const int displs[], MPI_Datatype rt, MPI_Comm c) {
  SP_MPI_CALL_C(ALLGATHERV, PMPI_Allgatherv(s, sc, st, r, rcs, displs, rt, c),
                sp__mpi_b_allgather(s, sc, st, rcs, 0, rt, c), -1);
}
int MPI_Iallgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rcs[],
                    const int displs[], MPI_Datatype rt, MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IALLGATHERV, PMPI_Iallgatherv(s, sc, st, r, rcs, displs, rt, c, req),
                sp__mpi_b_allgather(s, sc, st, rcs, 0, rt, c), -1);
}
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                 MPI_Comm c) {
  SP_MPI_CALL_C(ALLTOALL, PMPI_Alltoall(s, sc, st, r, rc, rt, c),
                sp__mpi_b_alltoall(s, NULL, sc, st, NULL, rc, rt, c), -1);
}
int MPI_Ialltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                  MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IALLTOALL, PMPI_Ialltoall(s, sc, st, r, rc, rt, c, req),
                sp__mpi_b_alltoall(s, NULL, sc, st, NULL, rc, rt, c), -1);
}
int MPI_Alltoallv(const void *s, const int scs[], const int sd[], MPI_Datatype st, void *r,
                  const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm c) {
  SP_MPI_CALL_C(ALLTOALLV, PMPI_Alltoallv(s, scs, sd, st, r, rcs, rd, rt, c),
                sp__mpi_b_alltoall(s, scs, 0, st, rcs, 0, rt, c), -1);
}
int MPI_Ialltoallv(const void *s, const int scs[], const int sd[], MPI_Datatype st, void *r,
                   const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IALLTOALLV, PMPI_Ialltoallv(s, scs, sd, st, r, rcs, rd, rt, c, req),
                sp__mpi_b_alltoall(s, scs, 0, st, rcs, 0, rt, c), -1);
}
int MPI_Reduce_scatter(const void *s, void *r, const int rcs[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm c) {
  SP_MPI_CALL_C(REDUCE_SCATTER, PMPI_Reduce_scatter(s, r, rcs, t, op, c),
                sp__mpi_b_reduce_scatter(rcs, t, c), -1);
}
int MPI_Ireduce_scatter(const void *s, void *r, const int rcs[], MPI_Datatype t, MPI_Op op,
                        MPI_Comm c, MPI_Request *req) {
  SP_MPI_CALL_C(IREDUCE_SCATTER, PMPI_Ireduce_scatter(s, r, rcs, t, op, c, req),
                sp__mpi_b_reduce_scatter(rcs, t, c), -1);
}
int MPI_Reduce_scatter_block(const void *s, void *r, int rc, MPI_Datatype t, MPI_Op op,
                             MPI_Comm c) {
  SP_MPI_CALL_C(REDUCE_SCATTER_BLOCK, PMPI_Reduce_scatter_block(s, r, rc, t, op, c),
                sp__mpi_b_reduce_scatter_block(rc, t, c), -1);
}
int MPI_Ireduce_scatter_block(const void *s, void *r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                              MPI_Request *req) {
  SP_MPI_CALL_C(IREDUCE_SCATTER_BLOCK, PMPI_Ireduce_scatter_block(s, r, rc, t, op, c, req),
                sp__mpi_b_reduce_scatter_block(rc, t, c), -1);
}
int MPI_Scan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  SP_MPI_CALL_C(SCAN, PMPI_Scan(s, r, count, t, op, c), sp__mpi_b_twice(count, t), -1);
}
int MPI_Iscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
              MPI_Request *req) {
  SP_MPI_CALL_C(ISCAN, PMPI_Iscan(s, r, count, t, op, c, req), sp__mpi_b_twice(count, t), -1);
}
int MPI_Exscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  SP_MPI_CALL_C(EXSCAN, PMPI_Exscan(s, r, count, t, op, c), sp__mpi_b_twice(count, t), -1);
}
int MPI_Iexscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                MPI_Request *req) {
  SP_MPI_CALL_C(IEXSCAN, PMPI_Iexscan(s, r, count, t, op, c, req), sp__mpi_b_twice(count, t), -1);
}
