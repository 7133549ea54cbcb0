/* omp_plain.c - an OpenMP program that knows nothing of scope-profiler
 * (no header, not linked with it): the library comes in through
 * OMP_TOOL_LIBRARIES alone and runs a session of its own (issue 48,
 * docs/openmp.md "Unmodified programs"). Two parallel regions of 2 threads,
 * each a worksharing loop with a reduction (and so its implicit barrier).
 * Exit 0 when the sums are right. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  long want = 0, got[2] = {0, 0};
  for (int i = 0; i < 1000; i++) want += i;
  for (int r = 0; r < 2; r++) {
    long sum = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp for reduction(+ : sum)
      for (int i = 0; i < 1000; i++) sum += i;
    }
    got[r] = sum;
  }
  if (got[0] != want || got[1] != want) {
    fprintf(stderr, "omp_plain: sums %ld %ld, want %ld\n", got[0], got[1], want);
    return 1;
  }
  return 0;
}
