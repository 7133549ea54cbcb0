/* mpi_completions.c - requests completed by waits and tests, for
 * check_mpi_completions.py (SCOPE_PROFILER_PROFILE_MPI=1; issue 50 item 1).
 * Ranks in pairs (r, r ^ 1) on 2 or 4 ranks, each with its partner q:
 *  1. MPI_Irecv from q tags 1, 2 and MPI_ANY_TAG (q sends 3), MPI_Isend to
 *     q tags 1, 2, 3 (k + 1 ints for the k-th), one MPI_Waitall of all six;
 *  2. on P = MPI_Comm_split(world, r / 2, r): MPI_Irecv(MPI_ANY_SOURCE,
 *     tag 7) and MPI_Isend to q tag 7, completed by MPI_Waitany twice;
 *  3. MPI_Irecv from q tags 8 and 9, then MPI_Send to q tags 9 and 8,
 *     completed by MPI_Testsome until both are;
 *  4. MPI_Recv_init from q tag 5 and MPI_Send_init to q tag 5 (4 ints),
 *     MPI_Start each, MPI_Wait each; MPI_Request_free both.
 * Each rank writes done_<r>.txt, one line per completed request as MPI's
 * statuses and its own arguments tell it:
 *   WAIT wait_index POST post_index send peer tag bytes comm
 * where the indices count this rank's calls of that name, comm is "world"
 * or "P". With argument "exit" it ends with exit() instead of sp_finalize
 * and MPI_Finalize, leaving its spill files to scope-profiler-merge (an
 * atexit barrier registered before sp_setup keeps both ranks alive until
 * both flushed, as mpi_bytes_spill.c). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"

static FILE *out;
static void all_flushed(void) { PMPI_Barrier(MPI_COMM_WORLD); }
static int n_irecv, n_isend, n_start;

static void line(const char *wait, int wi, const char *post, int pi, int send, int peer, int tag,
                 int bytes, const char *comm) {
  fprintf(out, "%s %d %s %d %d %d %d %d %s\n", wait, wi, post, pi, send, peer, tag, bytes, comm);
}

/* The request's receive status as a line; `send`: the send's own values. */
static void got(const char *wait, int wi, const char *post, int pi, const MPI_Status *st,
                const char *comm) {
  int count = 0;
  MPI_Get_count(st, MPI_BYTE, &count);
  line(wait, wi, post, pi, 0, st->MPI_SOURCE, st->MPI_TAG, count, comm);
}

int main(int argc, char **argv) {
  int rank, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n % 2) MPI_Abort(MPI_COMM_WORLD, 2);
  const int die = argc > 1 && strcmp(argv[1], "exit") == 0;
  if (die) atexit(all_flushed);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  char path[64];
  snprintf(path, sizeof path, "done_%d.txt", rank);
  out = fopen(path, "w");
  if (!out) MPI_Abort(MPI_COMM_WORLD, 4);
  const int q = rank ^ 1;
  int sbuf[3][3] = {{0}}, rbuf[3][3];
  MPI_Request rq[6];
  MPI_Status st[6];
  int post[6];
  /* 1. */
  for (int k = 0; k < 3; k++) {
    post[k] = n_irecv++;
    MPI_Irecv(rbuf[k], 3, MPI_INT, q, k < 2 ? k + 1 : MPI_ANY_TAG, MPI_COMM_WORLD, &rq[k]);
  }
  for (int k = 0; k < 3; k++) {
    post[3 + k] = n_isend++;
    MPI_Isend(sbuf[k], k + 1, MPI_INT, q, k + 1, MPI_COMM_WORLD, &rq[3 + k]);
  }
  MPI_Waitall(6, rq, st);
  for (int k = 0; k < 3; k++) got("MPI_Waitall", 0, "MPI_Irecv", post[k], &st[k], "world");
  for (int k = 0; k < 3; k++)
    line("MPI_Waitall", 0, "MPI_Isend", post[3 + k], 1, q, k + 1, 4 * (k + 1), "world");
  /* 2. */
  MPI_Comm p;
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &p);
  const int pq = q % 2; /* the partner's rank in P */
  post[0] = n_irecv++;
  MPI_Irecv(rbuf[0], 3, MPI_INT, MPI_ANY_SOURCE, 7, p, &rq[0]);
  post[1] = n_isend++;
  MPI_Isend(sbuf[0], 2, MPI_INT, pq, 7, p, &rq[1]);
  for (int w = 0; w < 2; w++) {
    int idx;
    MPI_Status s1;
    MPI_Waitany(2, rq, &idx, &s1);
    if (idx == 0)
      got("MPI_Waitany", w, "MPI_Irecv", post[0], &s1, "P");
    else
      line("MPI_Waitany", w, "MPI_Isend", post[1], 1, pq, 7, 8, "P");
  }
  /* 3. */
  post[0] = n_irecv++;
  MPI_Irecv(rbuf[0], 3, MPI_INT, q, 8, MPI_COMM_WORLD, &rq[0]);
  post[1] = n_irecv++;
  MPI_Irecv(rbuf[1], 3, MPI_INT, q, 9, MPI_COMM_WORLD, &rq[1]);
  MPI_Send(sbuf[0], 1, MPI_INT, q, 9, MPI_COMM_WORLD);
  MPI_Send(sbuf[1], 3, MPI_INT, q, 8, MPI_COMM_WORLD);
  int left = 2, calls = 0;
  while (left > 0) {
    int m, idx[2];
    MPI_Testsome(2, rq, &m, idx, st);
    for (int j = 0; m != MPI_UNDEFINED && j < m; j++)
      got("MPI_Testsome", calls, "MPI_Irecv", post[idx[j]], &st[j], "world");
    left -= m == MPI_UNDEFINED ? left : m;
    calls++;
  }
  /* 4. */
  MPI_Request pr[2];
  int sb4[4] = {0}, rb4[4];
  MPI_Recv_init(rb4, 4, MPI_INT, q, 5, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init(sb4, 4, MPI_INT, q, 5, MPI_COMM_WORLD, &pr[1]);
  const int s0 = n_start++;
  MPI_Start(&pr[0]);
  const int s1 = n_start++;
  MPI_Start(&pr[1]);
  MPI_Status ws;
  MPI_Wait(&pr[0], &ws);
  got("MPI_Wait", 0, "MPI_Start", s0, &ws, "world");
  MPI_Wait(&pr[1], MPI_STATUS_IGNORE);
  line("MPI_Wait", 1, "MPI_Start", s1, 1, q, 5, 16, "world");
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
  fclose(out);
  MPI_Comm_free(&p);
  if (die) exit(0);
  int rc = sp_finalize();
  MPI_Finalize();
  return rc != 0;
}
