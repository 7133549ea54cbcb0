/* bench_c_read.c - the C reader's side of bench_py_read.py: reads every
 * (region, rank) pair of FILE once with sp_reader_load, REPS times, and
 * prints the CPU seconds of each pass ("c_read SECONDS INTERVALS"). With
 * "open" as third argument only sp_reader_open and sp_reader_close are
 * timed ("c_open SECONDS REGIONS"): the structure pass alone, e.g. under
 * valgrind --tool=callgrind for a deterministic instruction count.
 *
 * usage: bench_c_read FILE [REPS [open]] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scope_profiler_reader.h"

static double sp_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: bench_c_read FILE [REPS [open]]\n", stderr);
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  int open_only = argc > 3 && strcmp(argv[3], "open") == 0;
  char msg[512];
  for (int rep = 0; rep < reps; rep++) {
    double t = sp_cpu();
    sp_reader_t *r;
    if (sp_reader_open(argv[1], &r, msg, sizeof msg) < 0) {
      fprintf(stderr, "bench_c_read: %s\n", msg);
      return 1;
    }
    long long n = 0;
    if (open_only) {
      n = sp_reader_num_regions(r);
      sp_reader_close(r);
      printf("c_open %.6f %lld\n", sp_cpu() - t, n);
      continue;
    }
    for (int g = 0; g < sp_reader_num_regions(r); g++)
      for (int k = 0; k < sp_reader_num_ranks(r); k++) {
        sp_reader_intervals_t iv;
        if (sp_reader_load(r, g, k, &iv) < 0) {
          fprintf(stderr, "bench_c_read: %s\n", sp_reader_errmsg(r));
          return 1;
        }
        n += iv.n;
        sp_reader_intervals_free(&iv);
      }
    sp_reader_close(r);
    printf("c_read %.6f %lld\n", sp_cpu() - t, n);
  }
  return 0;
}
