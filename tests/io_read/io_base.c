/* io_base.c - the regions of an I/O-recording run, for make_io_files.py.
 *
 * The recorder (SCOPE_PROFILER_PROFILE_IO) is not needed to read its
 * records: this program opens the regions it would write (io:open,
 * io:write, ...) by name, nested as the wrappers nest them (under the
 * caller's region), and make_io_files.py adds the per-call bytes and file
 * ids and the per-file records of docs/io.md with h5py. Each rank r, per
 * step s of 3:
 *   step > io:open, checkpoint > (2 + r) x io:write + MPI_File_write_at,
 *          io:read, io:lseek, io:close
 * then main > io:write (a log line) once. The calls spin ~20 us so that
 * every one has a duration. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <mpi.h>
#include <time.h>

#include "scope_profiler.h"

static void spin(long ns) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void call(const char *name, long ns) {
  sp_start_name(name);
  spin(ns);
  sp_stop_name(name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  sp_start_name("main");
  for (int s = 0; s < 3; s++) {
    sp_start_name("step");
    call("io:open", 10000);
    sp_start_name("checkpoint");
    for (int i = 0; i < 2 + rank; i++) call("io:write", 20000 + 5000L * rank);
    call("MPI_File_write_at", 15000);
    spin(5000);
    sp_stop_name("checkpoint");
    call("io:read", 12000);
    call("io:lseek", 3000);
    call("io:close", 4000);
    sp_stop_name("step");
  }
  call("io:write", 8000);
  sp_stop_name("main");
  if (sp_finalize() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return 0;
}
