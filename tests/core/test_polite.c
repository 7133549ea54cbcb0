/* Finalize's exchanges where ranks share cores (c/src/mpi/mpi_polite.c):
 * - agreement: every rank gets the smallest status of all ranks, in each
 *   of many successive agreements, whichever order the ranks arrive in;
 * - gather: rank 0 gets every rank's bytes in rank order, for lengths from
 *   0 to past the eager limit (messages the sender must help deliver), in
 *   successive gathers that the other ranks run into without waiting.
 * Built from the source file: the library does not export it. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpi_polite.h"

static int failures;

static void check(int ok, const char *what, int rank, int round) {
  if (ok) return;
  fprintf(stderr, "rank %d, round %d: %s\n", rank, round, what);
  failures++;
}

/* Sleeps 0-3 ms, varying by rank and round, so ranks arrive in a
 * different order each round and some find rank 0 already waiting. */
static void stagger(int rank, int round) {
  unsigned h = (unsigned)(rank * 2654435761u) ^ (unsigned)(round * 40503u);
  struct timespec ts = {0, (long)(h % 4u) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Rank r's blob in gather round g: a length that varies (0 for some
 * ranks, up to 40 kB) and bytes that say whose they are. */
static int blob_len(int r, int g) { return (r + g) % 4 == 0 ? 0 : (r * 7919 + g * 104729) % 40000; }
static char blob_byte(int r, int g, int i) { return (char)(r * 31 + g * 17 + i); }

static void gathers(MPI_Comm comm, int rank, int size) {
  enum { GATHERS = 20 };
  for (int g = 0; g < GATHERS; g++) {
    stagger(rank, g);
    int len = blob_len(rank, g);
    char *mine = malloc(len ? (size_t)len : 1);
    for (int i = 0; i < len; i++) mine[i] = blob_byte(rank, g, i);
    char *all = (char *)1;
    int64_t *offs = (int64_t *)1;
    /* A tag per gather, as mpi_par.c gives: a rank may send its next
     * gather's blob before rank 0 has every blob of this one. */
    int err = sp__mpi_polite_gather(comm, rank, size, mine, len, 7400 + g, &all, &offs);
    check(err == MPI_SUCCESS, "gather: MPI error", rank, g);
    if (rank != 0) {
      check(!all && !offs, "gather: a rank other than 0 got data", rank, g);
    } else if (err == MPI_SUCCESS) {
      int wrong = 0;
      for (int r = 0; r < size; r++) {
        wrong += offs[r + 1] - offs[r] != blob_len(r, g);
        for (int i = 0; !wrong && i < blob_len(r, g); i++)
          wrong += all[offs[r] + i] != blob_byte(r, g, i);
      }
      check(!wrong, "gather: wrong bytes or lengths at rank 0", rank, g);
      free(all);
      free(offs);
    }
    free(mine);
  }
  if (rank == 0) printf("%d gathers on %d ranks\n", GATHERS, size);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  enum { ROUNDS = 200 };
  /* Long sleeps allowed, and one long wait (rank 0 late by 0.3 s in round
   * 0), so the waits also go past the doubling into the longer sleeps. */
  sp__mpi_polite_set_crowding(200);
  for (int round = 0; round < ROUNDS; round++) {
    stagger(rank, round);
    if (round == 0 && rank == 0) nanosleep(&(struct timespec){0, 300000000L}, NULL);
    /* A different rank holds the smallest status each round; in every
     * third round all ranks agree on 0 (success). */
    int low = round % size;
    int rc = round % 3 == 0 ? 0 : (rank == low ? -100 - round : -rank);
    int expect = round % 3 == 0 ? 0 : -100 - round;
    int worst = 12345;
    int err = sp__mpi_polite_min(comm, rank, size, rc, &worst);
    check(err == MPI_SUCCESS, "MPI error", rank, round);
    check(worst == expect, "wrong smallest status", rank, round);
    if (worst != expect) fprintf(stderr, "  got %d, expected %d\n", worst, expect);
    /* Other traffic on the same communicator between agreements. */
    if (round % 50 == 0) {
      int sum = 0, one = 1;
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
      check(sum == size, "allreduce between agreements", rank, round);
    }
  }
  gathers(comm, rank, size);
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, comm);
  if (rank == 0) printf("%d agreements on %d ranks, %d failures\n", ROUNDS, size, any);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return any != 0;
}
