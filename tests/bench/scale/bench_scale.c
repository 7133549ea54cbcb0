/* bench_scale.c - finalize at scale: one point of the scaling table.
 *
 *   mpirun -np P bench_scale REGIONS EVENTS_PER_RANK [FILE [keep]]
 *
 * Each rank records EVENTS_PER_RANK calls spread over REGIONS regions
 * through the normal hot path (default config: spill flushes included),
 * then sp_finalize writes the file. Printed by rank 0, one line (memory:
 * max over ranks; columns below).
 * The baselines, measured in the same run to the same directory, are plain
 * MPI-IO writes of the same number of bytes, each rank its contiguous
 * share with one MPI_File_write_at:
 * - "base": the best of three writes into new files that are all kept
 *   until the end, so that each write, like finalize's, takes page-cache
 *   pages the kernel has not just freed. On this VM that matters more than
 *   anything else: the hypervisor takes back free guest memory, and the
 *   first touch of a page it took back costs 8-20 us (writing 512 MB into a
 *   new file: 0.5-1.3 GB/s; into pages just freed by an unlinked file:
 *   8 GB/s).
 * - "warm": the best of three x (independent, collective) with the file
 *   removed after each write, so later writes reuse the pages just freed:
 *   a memory copy, which no finalize that writes a new file can match here.
 * - "disk": the way to the disk, finalize then fsync of the file, against a
 *   write into a new file then MPI_File_sync.
 *   ranks regions events/rank finalize_s bytes MB/s base_MB/s ratio
 *   warm_MB/s warm_ratio disk_s disk_base_s disk_ratio rss_before_MiB
 *   rss_peak_MiB */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "scope_profiler.h"

static long rss_kib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, strlen(field)) == 0) v = atol(line + strlen(field));
  if (f) fclose(f);
  return v;
}

/* One timed write of bytes_per_rank per rank into path (kept). */
static double baseline_once(const char *path, const char *buf, long long bytes_per_rank, int rank,
                            int collective, int durable) {
  MPI_File fh;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_Offset at = (MPI_Offset)rank * bytes_per_rank;
  if (collective)
    MPI_File_write_at_all(fh, at, buf, (int)bytes_per_rank, MPI_BYTE, MPI_STATUS_IGNORE);
  else
    MPI_File_write_at(fh, at, buf, (int)bytes_per_rank, MPI_BYTE, MPI_STATUS_IGNORE);
  if (durable) MPI_File_sync(fh);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

static void remove_file(const char *path, int rank) {
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
}

typedef struct baselines {
  double fresh, warm, durable; /* seconds */
} baselines_t;

static baselines_t baseline_write(const char *base, long long bytes_per_rank, int rank) {
  char *buf = malloc((size_t)bytes_per_rank + 1);
  memset(buf, 7, (size_t)bytes_per_rank + 1);
  baselines_t b = {1e30, 1e30, 0};
  /* Fresh pages first, every file kept until all are written. */
  char path[4][4300];
  for (int rep = 0; rep < 4; rep++) {
    snprintf(path[rep], sizeof path[rep], "%s.%d", base, rep);
    double t = baseline_once(path[rep], buf, bytes_per_rank, rank, 0, rep == 3);
    if (rep == 3)
      b.durable = t;
    else if (t < b.fresh)
      b.fresh = t;
  }
  for (int rep = 0; rep < 4; rep++) remove_file(path[rep], rank);
  for (int rep = 0; rep < 3; rep++)
    for (int collective = 0; collective < 2; collective++) {
      double t = baseline_once(path[0], buf, bytes_per_rank, rank, collective, 0);
      remove_file(path[0], rank);
      if (t < b.warm) b.warm = t;
    }
  free(buf);
  return b;
}

/* Time to make the finished profile durable (rank 0). */
static double fsync_file(const char *path) {
  double t0 = MPI_Wtime();
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: bench_scale REGIONS EVENTS_PER_RANK [FILE]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int nreg = atoi(argv[1]);
  long events = atol(argv[2]);
  const char *file = argc > 3 ? argv[3] : "bench_scale.h5";
  sp_config c;
  sp_config_init(&c);
  c.file_path = file;
  sp_setup(&c);
  int *h = malloc((size_t)nreg * sizeof *h);
  for (int r = 0; r < nreg; r++) {
    char name[32];
    snprintf(name, sizeof name, "region_%03d", r);
    h[r] = sp_region(name);
  }
  for (long i = 0; i < events; i++) {
    sp_start(h[i % nreg]);
    sp_stop(h[i % nreg]);
  }
  long rss_before = rss_kib("VmRSS:");
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc = sp_finalize();
  MPI_Barrier(MPI_COMM_WORLD);
  double fin = MPI_Wtime() - t0;
  long rss_peak = rss_kib("VmHWM:");
  long mx[2] = {rss_before, rss_peak}, all[2];
  MPI_Reduce(mx, all, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  struct stat sb;
  long long bytes = 0;
  double sync_s = 0;
  if (rank == 0 && stat(file, &sb) == 0) {
    bytes = (long long)sb.st_size;
    sync_s = fsync_file(file);
  }
  MPI_Bcast(&bytes, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  char base[4200];
  snprintf(base, sizeof base, "%s.baseline", file);
  baselines_t b = baseline_write(base, bytes / size, rank);
  if (rank == 0) {
    double mbs = bytes / fin / 1e6, fresh = bytes / b.fresh / 1e6, warm = bytes / b.warm / 1e6;
    printf(
        "%5d %7d %11ld %10.4f %12lld %9.1f %9.1f %6.2f %9.1f %6.2f %7.3f %7.3f %6.2f %8.1f "
        "%8.1f%s\n",
        size, nreg, events, fin, bytes, mbs, fresh, mbs / fresh, warm, mbs / warm, fin + sync_s,
        b.durable, b.durable / (fin + sync_s), all[0] / 1024.0, all[1] / 1024.0,
        rc ? "  (finalize failed)" : "");
    if (!(argc > 4 && strcmp(argv[4], "keep") == 0)) unlink(file);
  }
  free(h);
  MPI_Finalize();
  return 0;
}
