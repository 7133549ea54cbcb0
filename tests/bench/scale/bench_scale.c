/* bench_scale.c - finalize at scale: one point of the scaling table.
 *
 *   mpirun -np P bench_scale REGIONS EVENTS_PER_RANK [FILE [keep]]
 *
 * Each rank records EVENTS_PER_RANK calls spread over REGIONS regions
 * through the normal hot path (default config: spill flushes included),
 * then sp_finalize writes the file. Printed by rank 0, one line (memory:
 * max over ranks; columns below).
 * The baseline, measured in the same run to the same directory, is a plain
 * MPI-IO write of the same number of bytes, each rank its contiguous
 * share: the best of three, each time the faster of an independent
 * MPI_File_write_at and a collective MPI_File_write_at_all (page cache
 * state makes single writes vary by 2-3x on these VMs). Both land in the
 * page cache, so a second comparison includes the way to the disk:
 * finalize then fsync of the file, against one independent write then
 * MPI_File_sync (the "disk" columns).
 *   ranks regions events/rank finalize_s bytes MB/s base_MB/s ratio
 *   disk_s disk_base_s disk_ratio rss_before_MiB rss_peak_MiB */
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
  double t = MPI_Wtime() - t0;
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  return t;
}

static double baseline_write(const char *path, long long bytes_per_rank, int rank,
                             double *durable) {
  char *buf = malloc((size_t)bytes_per_rank + 1);
  memset(buf, 7, (size_t)bytes_per_rank + 1);
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++)
    for (int collective = 0; collective < 2; collective++) {
      double t = baseline_once(path, buf, bytes_per_rank, rank, collective, 0);
      if (t < best) best = t;
    }
  *durable = baseline_once(path, buf, bytes_per_rank, rank, 0, 1);
  free(buf);
  return best;
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
  double tdurable = 0;
  double tb = baseline_write(base, bytes / size, rank, &tdurable);
  if (rank == 0) {
    double mbs = bytes / fin / 1e6, bmbs = bytes / tb / 1e6;
    printf("%5d %7d %11ld %10.4f %12lld %9.1f %9.1f %6.2f %7.3f %7.3f %6.2f %8.1f %8.1f%s\n", size,
           nreg, events, fin, bytes, mbs, bmbs, mbs / bmbs, fin + sync_s, tdurable,
           tdurable / (fin + sync_s), all[0] / 1024.0, all[1] / 1024.0,
           rc ? "  (finalize failed)" : "");
    if (!(argc > 4 && strcmp(argv[4], "keep") == 0)) unlink(file);
  }
  free(h);
  MPI_Finalize();
  return 0;
}
