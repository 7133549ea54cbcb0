/* mpi_comms.c - communicator ids the same on every member, for
 * check_mpi_comms.py (SCOPE_PROFILER_PROFILE_MPI=1; issue 50 item 1).
 * On 4 ranks, each rank makes, in this order:
 *   even ranks only: a dup of MPI_COMM_SELF, used once (so that ranks
 *     have made different numbers of communicators);
 *   A = MPI_Comm_split(world, r % 2, -r)   (2 colors, descending ranks)
 *   D = MPI_Comm_dup(world)
 *   C = MPI_Comm_dup(A)
 *   I = MPI_Intercomm_create(A, 0, world, other color's leader, 99)
 *   M = MPI_Intercomm_merge(I, r % 2)
 *   Q = MPI_Comm_idup(world), waited for
 *   S = MPI_Comm_split(D, r < 2, r), freed, then T = MPI_Comm_split(D, r < 2, r)
 * and calls MPI_Barrier once on each (in a different order on odd and even
 * ranks: C before D on odd ones). Each rank writes comms_<r>.txt: a line
 * "barrier NAME" per MPI_Barrier in call order and a line "comm NAME w..."
 * per communicator with the world ranks of its members in its rank order
 * (of the remote group for I), as MPI's group calls give them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "scope_profiler.h"

static FILE *out;

static void members(const char *name, MPI_Comm c) {
  int inter = 0, n = 0;
  MPI_Group g, world;
  MPI_Comm_test_inter(c, &inter);
  if (inter)
    MPI_Comm_remote_group(c, &g);
  else
    MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_size(g, &n);
  int *in = malloc(sizeof(int) * (size_t)n), *w = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) in[i] = i;
  MPI_Group_translate_ranks(g, n, in, world, w);
  fprintf(out, "comm %s", name);
  for (int i = 0; i < n; i++) fprintf(out, " %d", w[i]);
  fprintf(out, "\n");
  free(in);
  free(w);
  MPI_Group_free(&g);
  MPI_Group_free(&world);
}

static void barrier(const char *name, MPI_Comm c) {
  MPI_Barrier(c);
  fprintf(out, "barrier %s\n", name);
}

int main(int argc, char **argv) {
  int rank, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 4) MPI_Abort(MPI_COMM_WORLD, 2);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  char path[64];
  snprintf(path, sizeof path, "comms_%d.txt", rank);
  out = fopen(path, "w");
  if (!out) MPI_Abort(MPI_COMM_WORLD, 4);
  barrier("world", MPI_COMM_WORLD);
  members("world", MPI_COMM_WORLD);
  MPI_Comm self2, a, d, c, inter, merged, q, s, t;
  if (rank % 2 == 0) {
    MPI_Comm_dup(MPI_COMM_SELF, &self2);
    barrier("self2", self2);
    members("self2", self2);
  }
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_dup(a, &c);
  MPI_Intercomm_create(a, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 3 : 2, 99, &inter);
  MPI_Intercomm_merge(inter, rank % 2, &merged);
  MPI_Request rq;
  MPI_Comm_idup(MPI_COMM_WORLD, &q, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Comm_split(d, rank < 2, rank, &s);
  barrier("s", s);
  members("s", s);
  MPI_Comm_free(&s);
  MPI_Comm_split(d, rank < 2, rank, &t);
  barrier("a", a);
  if (rank % 2) {
    barrier("c", c);
    barrier("d", d);
  } else {
    barrier("d", d);
    barrier("c", c);
  }
  barrier("inter", inter);
  barrier("merged", merged);
  barrier("q", q);
  barrier("t", t);
  members("a", a);
  members("d", d);
  members("c", c);
  members("inter", inter);
  members("merged", merged);
  members("q", q);
  members("t", t);
  fclose(out);
  MPI_Comm_free(&t);
  MPI_Comm_free(&q);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&c);
  MPI_Comm_free(&d);
  MPI_Comm_free(&a);
  if (rank % 2 == 0) MPI_Comm_free(&self2);
  int rc = sp_finalize();
  MPI_Finalize();
  return rc != 0;
}
