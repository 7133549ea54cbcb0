/* bench_otf2.h - what bench_otf2.c's parts share. */
#ifndef SP_BENCH_OTF2_H
#define SP_BENCH_OTF2_H

/* One process's run: wall and CPU seconds, peak RSS in MiB. */
typedef struct sp_measure {
  double wall, cpu, rss_mib;
} sp_measure_t;

/* Writes calls / 2 ENTER/LEAVE pairs' worth (calls calls) of nthreads
 * threads to dir/traces.otf2 with the OTF2 library alone, in a child
 * process. 0 on success. */
int sp_bench_plain(const char *dir, long calls, int nthreads, sp_measure_t *m);
/* Removes dir and everything in it (no link followed). */
void sp_bench_rm(const char *dir);
/* Runs fn(arg) in a child process and measures it; 0 when it returned 0. */
int sp_bench_fork(int (*fn)(const char *), const char *arg, sp_measure_t *m);
/* Runs argv (argv[0] a path; stdout to /dev/null) and measures it. */
int sp_bench_spawn(char *const argv[], sp_measure_t *m);

#endif
