/* bench_columnar.c - finalize per (rank, region) pair, columnar against
 * rank<N> groups, against MPI_File_write_at_all of the same bytes, all in
 * one run:
 *
 *   mpirun -np P bench_columnar REGIONS CALLS DIR [REPEATS [WHICH]]
 *
 * WHICH = all (default) or columnar: only the default columnar finalize
 * and the baseline (the cost model's sweep to 256 ranks, where the
 * per-rank and collective layouts take minutes; their columns print 0).
 *
 * Each session records CALLS calls of each of REGIONS regions per rank and
 * finalizes into DIR with SCOPE_PROFILER_LAYOUT=ranks, then =columnar (the
 * variable is read at sp_setup) as rank 0 creates it and the ranks pwrite
 * (SCOPE_PROFILER_METADATA=root), then through parallel HDF5 with
 * collective writes (=collective); the baseline writes the columnar file's
 * bytes (its event columns and index rows, each rank its slice) with one
 * MPI_File_write_at_all into a new file (each finalize's file is removed
 * before its timing too). Each is the best of REPEATS
 * (default 3) and timed from a barrier to the slowest rank's end. Rank 0
 * prints one line:
 *   ranks regions calls pairs bytes ranks_s columnar_s coll_s base_s
 *   ranks_us/pair columnar_us/pair columnar_beyond_us/pair coll_us/pair columnar/base
 *   ranks/columnar columnar_cpu_ms base_cpu_ms (columnar: root, coll: collective; beyond:
 *   minus base; cpu: the process CPU time of the timed part, the library's threads
 *   included, summed over the ranks, in the repetition of the best time) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"

/* This process's CPU time, every thread's, in seconds. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The slowest rank's wall time of a part that started at t0 and used CPU
 * since c0; *cpu: the CPU time summed over the ranks. */
static double worst_of(double t0, double c0, double *cpu) {
  double t = MPI_Wtime() - t0, c = cpu_now() - c0, worst;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&c, cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return worst;
}

static double session(const char *layout, const char *metadata, const char *path, int regions,
                      int calls, double *cpu) {
  setenv("SCOPE_PROFILER_LAYOUT", layout, 1);
  setenv("SCOPE_PROFILER_METADATA", metadata, 1);
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  if (sp_setup(&c) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int *h = malloc((size_t)regions * sizeof *h);
  char name[32];
  for (int r = 0; r < regions; r++) {
    snprintf(name, sizeof name, "region_%04d", r);
    h[r] = sp_region(name);
  }
  for (int k = 0; k < calls; k++)
    for (int r = 0; r < regions; r++) {
      sp_start(h[r]);
      sp_stop(h[r]);
    }
  free(h);
  /* The previous repetition's file goes before the timing, as the
   * baseline's does: replacing it would add the kernel's freeing of its
   * pages (about 1.5 ms at 16 ranks) to the finalize. */
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), c0 = cpu_now();
  int rc = sp_finalize();
  double worst = worst_of(t0, c0, cpu);
  if (rc != 0) {
    fprintf(stderr, "sp_finalize: %s\n", sp_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return worst;
}

/* The same bytes per rank as the columnar file's columns, one collective write. */
static double baseline(const char *path, long long bytes, int rank, double *cpu) {
  char *buf = malloc((size_t)bytes);
  memset(buf, rank & 0xff, (size_t)bytes);
  unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), c0 = cpu_now();
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at_all(fh, (MPI_Offset)rank * bytes, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  double worst = worst_of(t0, c0, cpu);
  free(buf);
  return worst;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: bench_columnar REGIONS CALLS DIR [REPEATS [all|columnar]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int regions = atoi(argv[1]), calls = atoi(argv[2]), reps = argc > 4 ? atoi(argv[4]) : 3;
  const int all = argc <= 5 || strcmp(argv[5], "columnar") != 0;
  char pr[4096], pc[4096], pb[4096];
  snprintf(pr, sizeof pr, "%s/bench_ranks.h5", argv[3]);
  snprintf(pc, sizeof pc, "%s/bench_columnar.h5", argv[3]);
  snprintf(pb, sizeof pb, "%s/bench_base.bin", argv[3]);
  /* start, end, call and parent ids 8 bytes, thread id 4; index row 28 */
  const long long bytes = (long long)regions * calls * 36 + (long long)regions * 28;
  double tr = 1e30, tc = 1e30, tp = 1e30, tb = 1e30, cc = 0.0, cb = 0.0, unused;
  for (int i = 0; i < reps; i++) {
    double bcpu, ccpu;
    double a = all ? session("ranks", "root", pr, regions, calls, &unused) : 0.0;
    double b = session("columnar", "root", pc, regions, calls, &bcpu);
    double p = all ? session("columnar", "collective", pc, regions, calls, &unused) : 0.0;
    double c = baseline(pb, bytes, rank, &ccpu);
    tr = a < tr ? a : tr;
    tp = p < tp ? p : tp;
    cc = b < tc ? bcpu : cc;
    tc = b < tc ? b : tc;
    cb = c < tb ? ccpu : cb;
    tb = c < tb ? c : tb;
  }
  if (rank == 0) {
    const double pairs = (double)size * regions;
    printf(
        "%5d %7d %5d %8.0f %10lld %8.4f %10.4f %8.4f %8.4f %8.2f %8.2f %8.2f %8.2f %8.2f "
        "%8.2f %8.2f %8.2f\n",
        size, regions, calls, pairs, bytes * size, tr, tc, tp, tb, tr / pairs * 1e6,
        tc / pairs * 1e6, (tc - tb) / pairs * 1e6, tp / pairs * 1e6, tc / tb, tr / tc, cc * 1e3,
        cb * 1e3);
  }
  unlink(pb);
  MPI_Finalize();
  return 0;
}
