/* mpi_comm_create.c - the C calls that make a communicator give it its id.
 *
 * Each makes its communicator with the PMPI call, then every member agrees
 * on the new communicator's id (sp__mpi_comm_created, mpi_comm_ids.c: a
 * collective over it). Not timed as regions. They do it whether or not MPI
 * calls are recorded, in or out of a session: a member that skipped the
 * agreement would leave the others waiting in it. The Fortran calls are in
 * mpi_profile_fortran.c. */
#include "mpi_comm_ids.h"

/* rc, after agreeing on *out's id when the call succeeded. */
static int sp_made(int rc, const MPI_Comm *out) {
  if (rc == MPI_SUCCESS && out) sp__mpi_comm_created(*out);
  return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) { return sp_made(PMPI_Comm_dup(comm, out), out); }

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *out) {
  return sp_made(PMPI_Comm_dup_with_info(comm, info, out), out);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *out, MPI_Request *req) {
  int rc = PMPI_Comm_idup(comm, out, req);
  if (rc == MPI_SUCCESS && out) sp__mpi_comm_idup_started(comm, *out);
  return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out) {
  return sp_made(PMPI_Comm_split(comm, color, key, out), out);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out) {
  return sp_made(PMPI_Comm_split_type(comm, type, key, info, out), out);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out) {
  return sp_made(PMPI_Comm_create(comm, group, out), out);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out) {
  return sp_made(PMPI_Comm_create_group(comm, group, tag, out), out);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *out) {
  return sp_made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out), out);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *out) {
  return sp_made(PMPI_Cart_sub(comm, remain, out), out);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *out) {
  return sp_made(PMPI_Graph_create(comm, nnodes, index, edges, reorder, out), out);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int dests[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *out) {
  return sp_made(
      PMPI_Dist_graph_create(comm, n, sources, degrees, dests, weights, info, reorder, out), out);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int dests[],
                                   const int destweights[], MPI_Info info, int reorder,
                                   MPI_Comm *out) {
  return sp_made(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                                 dests, destweights, info, reorder, out),
                 out);
}

int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                         int tag, MPI_Comm *out) {
  return sp_made(PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, out), out);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *out) {
  return sp_made(PMPI_Intercomm_merge(inter, high, out), out);
}
