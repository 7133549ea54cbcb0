/* bench_nested.h - what the analysis benchmarks share: the nested calls
 * they write (bench_analysis.c, bench_ids.c), the dataset writer, medians
 * and CPU time. */
#ifndef SP_BENCH_NESTED_H
#define SP_BENCH_NESTED_H

#include <hdf5.h>
#include <stdint.h>

/* Regions per rank: one step, 3 phases in it, 4 kernels in each phase. */
enum { SP_NREG = 16 };

/* Region g's call in step i on rank r: 0 the step, 1..3 phases, 4..15
 * kernels (4 per phase), each with its jitter from *lcg. id and pid (may
 * be NULL) receive the call's id and its parent's (-1 for the step) as the
 * reference tool numbers calls: the call's position in start order on its
 * rank. */
void sp_nested_call(int g, int64_t i, int r, uint64_t *lcg, int64_t *s, int64_t *e, int64_t *id,
                    int64_t *pid);

/* Writes v (n elements of memory type mtype) as the 1-D dataset grp/name
 * of file type ftype. Returns 0 or -1. */
int sp_h5_put(hid_t grp, const char *name, hid_t ftype, hid_t mtype, const void *v, hsize_t n);

/* Median of v[0..n-1] (sorted in place). */
double sp_median_of(double *v, int n);

/* CPU seconds of this process: the machine is shared, wall time is noisy. */
double sp_cpu_seconds(void);

#endif
