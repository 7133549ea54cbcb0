/* bench_conditions.c - the cost of a start/stop pair under the conditions
 * a rank meets (issue 44): idle, the other core busy, and pinned to one
 * CPU with the library's threads; each figure against the rdtsc floor
 * measured in the same run, and, with --main, against another build of
 * the library in the same run.
 *
 *   bench_conditions [--main LIBDIR] [--gptl LIBGPTL.so] [--reps N] [--scale S]
 *
 * The program runs itself once per repetition, condition and library
 * (LD_LIBRARY_PATH=LIBDIR for --main's, the library it was built with for
 * the other), the libraries alternating, and prints each figure's minimum,
 * median and maximum over the repetitions. Conditions: idle (nothing else
 * started); busy (a process that spins, started by the run: on this
 * 2-core VM the other core is taken, and the library's threads compete
 * with it); pinned (the run, and so the library's threads, bound to the
 * CPU it started on). Figures of a run:
 *
 *  - floor: ns per pair of two rdtsc reads and two stores (bench_pairs.c);
 *  - trace by handle, flush on (the default: full buffers written by the
 *    writer thread), warm, and 16 regions used in turn against one region;
 *    15 blocks of 2e5 pairs (2 flushes each) alternating with the floor's:
 *    the best block of each (as bench_pairs.c; trace_x_floor_med,
 *    turn16_x_one_med: the medians' ratios); the recording thread's page faults per 1e6 of those
 *    pairs; then the same ratios in 300 short blocks of 1e4 pairs each
 *    (trace_short_x_floor, turn16_short_x_one: the steady pair without
 *    the flushes, readable on a loaded VM);
 *  - profile mode alone (time_trace 0, aggregate 1) against the floor and,
 *    with --gptl, GPTL's statistics-only handle timer (nanotime:
 *    rdtsc), 300 blocks of 1e4 pairs of each in turn: the best block of
 *    each (no buffers, so no flush for short blocks to leave out);
 *  - cold: a fresh region's first 1e5 pairs against its pairs 2e5..3e5
 *    (median of 4 regions), in wall time and in the recording thread's
 *    CPU time (cold_x_steady_cpu);
 *  - stalls: 2e6 pairs of one region from a fresh session, each timed:
 *    the longest, how many took over 1 ms, and how many of those were
 *    the library's (stall_lib_over_1ms: the recording thread blocked or
 *    worked in them, or, pinned, the library's threads took the CPU;
 *    see win_lib); before them the same loop without the library's calls
 *    (what the machine adds: preemptions; machine_lib_over_1ms checks
 *    the attribution, it must be 0); stall_lib_blocked, _worked and
 *    _threads count the library's pairs by which test of win_lib they met;
 *    stall_lib_threads_alone those of _threads in whose window other
 *    processes had the CPU under 0.5 ms (at load 100+, a window stretched
 *    by other processes also holds 0.5 ms of the library's threads).
 *
 * Targets (issue 44): trace <= 1.15x floor idle, <= 1.25x busy and
 * pinned; 16 regions <= 1.2x one; profile <= floor + 10 ns and ahead of
 * GPTL; cold <= 1.5x steady; no pair over 1 ms. The VM is shared: read
 * the ratios, repeat, and compare the two libraries of the same run. */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu, RUSAGE_THREAD */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_pairs.h"
#include "scope_profiler.h"

#define NCOND 3
#define NROUNDS 15 /* alternating blocks of 2e5 pairs per steady figure */
/* Short blocks (1e4 pairs) in turn, for the figures without flushes: the
 * best ones are blocks the scheduler left alone even on a loaded VM (15
 * blocks of 2e5 pairs, 4-10 ms each, were nearly all cut by preemptions
 * at load 10 there). */
#define SHORT_ROUNDS 300
#define MAXREPS 64
#define MAXFIG 32
static const char *const cond_name[NCOND] = {"idle", "busy", "pinned"};

static double scale = 1.0;

static long scaled(double n) {
  long v = (long)(n * scale);
  return v > 0 ? v : 1;
}

/* ---------- the measured run (one library, one condition) ---------- */

static int h_one, h_turn[16], h_prof;
static int gptl_h;
static int (*gptl_start)(const char *, int *);
static int (*gptl_stop)(const char *, int *);

static long thread_faults(void) {
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  return r.ru_minflt + r.ru_majflt;
}

static int64_t cpu_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void body_one(long n) {
  const int h = h_one;
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static void body_turn16(long n) {
  for (long i = 0; i < n; i++) {
    const int h = h_turn[i & 15];
    sp_start(h);
    sp_stop(h);
  }
}

static void body_prof(long n) {
  const int h = h_prof;
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static void body_gptl(long n) {
  for (long i = 0; i < n; i++) {
    gptl_start("pair", &gptl_h);
    gptl_stop("pair", &gptl_h);
  }
}

static double block_ns(sp_bench_body_fn fn, long n) {
  int64_t t0 = sp_bench_now_ns();
  fn(n);
  return (double)(sp_bench_now_ns() - t0) / (double)n;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_dbl);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double best(const double *v, int n) {
  double b = v[0];
  for (int i = 1; i < n; i++) b = v[i] < b ? v[i] : b;
  return b;
}

static void session(int trace) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = "/dev/null"; /* spill files written, the profile discarded */
  if (!trace) {
    c.time_trace = 0;
    c.aggregate = 1;
  }
  if (sp_setup(&c) != 0) exit(3);
}

/* Steady trace by handle and 16 regions in turn, alternating with the floor. */
static void run_trace(void) {
  const long n = scaled(2e5);
  double fl[NROUNDS], one[NROUNDS], t16[NROUNDS];
  session(1);
  h_one = sp_region("one");
  for (int k = 0; k < 16; k++) {
    char name[16];
    snprintf(name, sizeof name, "turn_%02d", k);
    h_turn[k] = sp_region(name);
  }
  body_one(10 * n); /* warm-up: buffers grown, 19 flushes */
  body_turn16(10 * n);
  long faults = 0;
  for (int r = 0; r < NROUNDS; r++) {
    fl[r] = block_ns(sp_bench_floor_rdtsc, n);
    long f0 = thread_faults();
    one[r] = block_ns(body_one, n);
    faults += thread_faults() - f0;
    t16[r] = block_ns(body_turn16, n);
  }
  /* The same in short blocks: the steady pair without the flushes (a swap
   * of arrays, a few us in 1e5 pairs, left out of the best blocks). */
  const long m = scaled(1e4);
  static double sfl[SHORT_ROUNDS], sone[SHORT_ROUNDS], s16[SHORT_ROUNDS];
  for (int r = 0; r < SHORT_ROUNDS; r++) {
    sfl[r] = block_ns(sp_bench_floor_rdtsc, m);
    sone[r] = block_ns(body_one, m);
    s16[r] = block_ns(body_turn16, m);
  }
  sp_finalize();
  const double sbo = best(sone, SHORT_ROUNDS);
  printf("trace_short_x_floor %.4f\nturn16_short_x_one %.4f\n", sbo / best(sfl, SHORT_ROUNDS),
         best(s16, SHORT_ROUNDS) / sbo);
  double bf = best(fl, NROUNDS), bo = best(one, NROUNDS), b16 = best(t16, NROUNDS);
  printf("floor_ns %.3f\ntrace_ns %.3f\ntrace_x_floor %.4f\n", bf, bo, bo / bf);
  printf("trace_x_floor_med %.4f\n", median(one, NROUNDS) / median(fl, NROUNDS));
  printf("turn16_ns %.3f\nturn16_x_one %.4f\n", b16, b16 / bo);
  printf("turn16_x_one_med %.4f\n", median(t16, NROUNDS) / median(one, NROUNDS));
  printf("trace_faults_per_1e6 %.1f\n", (double)faults / (NROUNDS * (double)n) * 1e6);
}

/* GPTL's handle timer, statistics only, nanotime (rdtsc); 0 when absent. */
static int gptl_open(const char *path) {
  if (!path) return 0;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "bench_conditions: %s\n", dlerror());
    return 0;
  }
  int (*setutr)(int) = (int (*)(int))dlsym(lib, "GPTLsetutr");
  int (*init)(void) = (int (*)(void))dlsym(lib, "GPTLinitialize");
  int (*init_handle)(const char *, int *) =
      (int (*)(const char *, int *))dlsym(lib, "GPTLinit_handle");
  gptl_start = (int (*)(const char *, int *))dlsym(lib, "GPTLstart_handle");
  gptl_stop = (int (*)(const char *, int *))dlsym(lib, "GPTLstop_handle");
  if (!setutr || !init || !init_handle || !gptl_start || !gptl_stop) return 0;
  (void)setutr(2); /* GPTLnanotime */
  return init() == 0 && init_handle("pair", &gptl_h) == 0;
}

/* Profile mode keeps no buffers, so no flush to leave out: short blocks. */
static void run_profile(const char *gptl) {
  const long n = scaled(1e4);
  const int with_gptl = gptl_open(gptl);
  static double fl[SHORT_ROUNDS], pr[SHORT_ROUNDS], gp[SHORT_ROUNDS];
  session(0);
  h_prof = sp_region("pair");
  body_prof(10 * n);
  if (with_gptl) body_gptl(10 * n);
  for (int r = 0; r < SHORT_ROUNDS; r++) {
    fl[r] = block_ns(sp_bench_floor_rdtsc, n);
    pr[r] = block_ns(body_prof, n);
    gp[r] = with_gptl ? block_ns(body_gptl, n) : 0;
  }
  sp_finalize();
  double bf = best(fl, SHORT_ROUNDS), bp = best(pr, SHORT_ROUNDS);
  printf("profile_floor_ns %.3f\nprofile_ns %.3f\nprofile_minus_floor %.3f\n", bf, bp, bp - bf);
  if (with_gptl) {
    double bg = best(gp, SHORT_ROUNDS);
    printf("gptl_ns %.3f\nprofile_x_gptl %.4f\n", bg, bp / bg);
  }
}

/* A fresh region's first 1e5 pairs against its pairs 2e5..3e5. */
static void run_cold(void) {
  const long n = scaled(1e5);
  double x[4], xc[4];
  session(1);
  for (int k = 0; k < 4; k++) {
    char name[16];
    snprintf(name, sizeof name, "fresh_%d", k);
    h_one = sp_region(name);
    int64_t c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    double first = block_ns(body_one, n);
    int64_t c1 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    body_one(n);
    int64_t c2 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    x[k] = first / block_ns(body_one, n);
    xc[k] = (double)(c1 - c0) / (double)(cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c2);
  }
  sp_finalize();
  printf("cold_x_steady %.4f\n", median(x, 4));
  /* The same in the recording thread's CPU time: without the time other
   * processes took the CPU (a block of 2-3 ms is rarely left alone at load
   * 10); faults count, waits for the library's threads do not. */
  printf("cold_x_steady_cpu %.4f\n", median(xc, 4));
}

static double ns_per_tick;
static int pinned_run; /* condition 2: the library's threads share our CPU */

/* Where a window of pairs went: the recording thread's CPU time and
 * voluntary switches (it blocked), the whole process's CPU time. */
typedef struct win {
  int64_t own, proc, wall;
  long vcsw;
} win_t;

static win_t win_now(void) {
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  return (win_t){cpu_ns(CLOCK_THREAD_CPUTIME_ID), cpu_ns(CLOCK_PROCESS_CPUTIME_ID),
                 sp_bench_now_ns(), r.ru_nvcsw};
}

/* Whether the pairs over 1 ms in the window a..b are the library's: the
 * recording thread blocked (a lock, the writer's bound), or worked 0.5 ms
 * of it itself (faults, writes), or, pinned, the library's other threads
 * took 0.5 ms of the CPU it shares with them. Otherwise the CPU went to
 * another process (the machine's). A window of 256 pairs takes ~5 us. */
static int win_lib(win_t a, win_t b) {
  const int64_t own = b.own - a.own, others = (b.proc - a.proc) - own;
  /* Pinned, the wall time the process did not use went to other processes:
   * bit 3 (not a test of its own): the library's threads took 0.5 ms and
   * other processes less than 0.5 ms, a stall that is the library's alone. */
  const int64_t away = (b.wall - a.wall) - (b.proc - a.proc);
  const int threads = pinned_run && others >= 500000;
  return (b.vcsw > a.vcsw) | (own >= 500000) << 1 | threads << 2 | (threads && away < 500000) << 3;
}

#if defined(__x86_64__)
/* n pairs (of the library's calls when h >= 0, else of nothing) each timed
 * with rdtsc; the clocks read every 256 pairs to tell whose a pair over
 * 1 ms is. */
static void timed_pairs(long n, int h, int64_t *longest, long *over, long *lib_over, long kind[4]) {
  const int64_t ms = (int64_t)(1e6 / ns_per_tick);
  win_t w = win_now();
  long in_win = 0;
  *longest = 0;
  *over = *lib_over = 0;
  kind[0] = kind[1] = kind[2] = kind[3] = 0;
  for (long i = 0; i < n; i++) {
    int64_t t0 = (int64_t)__builtin_ia32_rdtsc();
    if (h >= 0) {
      sp_start(h);
      sp_stop(h);
    } else {
      __asm__ volatile("" ::: "memory");
    }
    int64_t d = (int64_t)__builtin_ia32_rdtsc() - t0;
    if (d > *longest) *longest = d;
    in_win += d > ms;
    if ((i & 255) == 255 || i == n - 1) {
      win_t w1 = win_now();
      const int lib = in_win ? win_lib(w, w1) : 0;
      if (lib) *lib_over += in_win;
      for (int k = 0; k < 4; k++) kind[k] += (lib >> k & 1) ? in_win : 0;
      *over += in_win;
      in_win = 0;
      w = w1;
    }
  }
}
#endif

/* Every pair of 2e6 from a fresh session timed with rdtsc. */
static void run_stalls(void) {
#if defined(__x86_64__)
  int64_t w0 = sp_bench_now_ns(), c0 = (int64_t)__builtin_ia32_rdtsc();
  while (sp_bench_now_ns() - w0 < 20000000) {}
  ns_per_tick = (double)(sp_bench_now_ns() - w0) / (double)((int64_t)__builtin_ia32_rdtsc() - c0);
  const long n = scaled(2e6);
  /* What the machine adds: the same loop without the library's calls
   * (and a check of win_lib: none of its pairs is the library's). */
  int64_t longest;
  long over, lib_over, kind[4];
  timed_pairs(n, -1, &longest, &over, &lib_over, kind);
  printf("machine_max_us %.1f\nmachine_over_1ms %ld\nmachine_lib_over_1ms %ld\n",
         (double)longest * ns_per_tick / 1e3, over, lib_over);
  session(1);
  const int h = sp_region("stalls");
  long f0 = thread_faults();
  timed_pairs(n, h, &longest, &over, &lib_over, kind);
  long faults = thread_faults() - f0;
  sp_finalize();
  printf("stall_max_us %.1f\nstall_over_1ms %ld\nstall_lib_over_1ms %ld\nfresh_faults %ld\n",
         (double)longest * ns_per_tick / 1e3, over, lib_over, faults);
  printf("stall_lib_blocked %ld\nstall_lib_worked %ld\nstall_lib_threads %ld\n", kind[0], kind[1],
         kind[2]);
  printf("stall_lib_threads_alone %ld\n", kind[3]);
#endif
}

static int child_main(int cond, const char *gptl) {
  pid_t spin = 0;
  if (cond == 1) {
    spin = fork();
    if (spin == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the run */
      for (;;) __asm__ volatile("");
    }
    usleep(20000);
  } else if (cond == 2) {
    pinned_run = 1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) perror("bench_conditions: sched_setaffinity");
  }
  if (sp_bench_init(scaled(2e5)) != 0) return 1;
  run_trace();
  run_profile(gptl);
  run_cold();
  run_stalls();
  sp_bench_end();
  if (spin > 0) {
    kill(spin, SIGKILL);
    waitpid(spin, NULL, 0);
  }
  return 0;
}

/* ---------- the driver: runs, collects, summarises ---------- */

typedef struct fig {
  char key[32];
  double v[NCOND][2][MAXREPS];
  int n[NCOND][2];
} fig_t;

static fig_t figs[MAXFIG];
static int nfigs;

static fig_t *fig_get(const char *key) {
  for (int i = 0; i < nfigs; i++)
    if (strcmp(figs[i].key, key) == 0) return &figs[i];
  if (nfigs == MAXFIG) return NULL;
  snprintf(figs[nfigs].key, sizeof figs[nfigs].key, "%s", key);
  return &figs[nfigs++];
}

/* Runs this program as a measured run and reads its figures. */
static int run_child(const char *self, int cond, int lib, const char *libdir, const char *gptl,
                     int rep) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    if (libdir) setenv("LD_LIBRARY_PATH", libdir, 1);
    char c[8], s[32];
    snprintf(c, sizeof c, "%d", cond);
    snprintf(s, sizeof s, "%g", scale);
    execl(self, self, "--child", c, "--scale", s, "--gptl", gptl ? gptl : "", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  char key[32];
  double val;
  while (in && fscanf(in, "%31s %lf", key, &val) == 2) {
    fig_t *f = fig_get(key);
    if (f && f->n[cond][lib] < MAXREPS) f->v[cond][lib][f->n[cond][lib]++] = val;
  }
  if (in) fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_conditions: run %d (%s, %s) failed (status %d)\n", rep, cond_name[cond],
            lib ? "main" : "new", status);
    return -1;
  }
  return 0;
}

/* Minimum, median and maximum of a figure over the runs (0 without runs). */
static void min_med(const fig_t *f, int cond, int lib, double out[3]) {
  double v[MAXREPS];
  int n = f->n[cond][lib];
  memcpy(v, f->v[cond][lib], (size_t)n * sizeof *v);
  out[0] = out[1] = out[2] = 0;
  if (n == 0) return;
  out[1] = median(v, n);
  out[0] = v[0];
  out[2] = v[n - 1];
}

static void report(int with_main, int reps) {
  for (int c = 0; c < NCOND; c++) {
    printf("\ncondition %s (%d runs per library): min / median / max\n", cond_name[c], reps);
    printf("%-24s %32s %32s\n", "figure", "this library", with_main ? "--main library" : "");
    for (int i = 0; i < nfigs; i++) {
      double a[3], m[3];
      min_med(&figs[i], c, 0, a);
      printf("%-24s %10.3f %10.3f %10.3f", figs[i].key, a[0], a[1], a[2]);
      if (with_main && figs[i].n[c][1] > 0) {
        min_med(&figs[i], c, 1, m);
        printf(" %10.3f %10.3f %10.3f", m[0], m[1], m[2]);
      }
      printf("\n");
    }
  }
  printf(
      "\ntargets (issue 44): trace_x_floor <= 1.15 idle, <= 1.25 busy and pinned; "
      "turn16_x_one <= 1.2; profile_minus_floor <= 10 ns and profile_x_gptl < 1; "
      "cold_x_steady <= 1.5; stall_over_1ms 0 (stall_lib_over_1ms: the library's)\n");
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench_conditions [--main LIBDIR] [--gptl LIBGPTL.so] [--reps N] [--scale S]\n");
}

int main(int argc, char **argv) {
  const char *main_lib = NULL, *gptl = NULL;
  int reps = 3, child = -1;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      usage();
      return 2;
    }
    if (strcmp(argv[i], "--main") == 0) {
      main_lib = v;
    } else if (strcmp(argv[i], "--gptl") == 0) {
      gptl = *v ? v : NULL;
    } else if (strcmp(argv[i], "--reps") == 0) {
      reps = atoi(v);
    } else if (strcmp(argv[i], "--scale") == 0) {
      scale = atof(v);
    } else if (strcmp(argv[i], "--child") == 0) {
      child = atoi(v);
    } else {
      usage();
      return 2;
    }
    i++;
  }
  if (child >= 0) return child < NCOND ? child_main(child, gptl) : 2;
  if (reps < 1 || reps > MAXREPS || !(scale > 0)) {
    usage();
    return 2;
  }
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return 1;
  self[len] = '\0';
  /* This library: the one the program was linked with (its run path),
   * not one an outer LD_LIBRARY_PATH names. */
  const char *outer = getenv("LD_LIBRARY_PATH");
  char *keep = outer ? strdup(outer) : NULL;
  unsetenv("LD_LIBRARY_PATH");
  int failed = 0;
  for (int r = 0; r < reps; r++)
    for (int c = 0; c < NCOND; c++)
      for (int lib = 0; lib < (main_lib ? 2 : 1); lib++)
        failed |= run_child(self, c, lib, lib ? main_lib : NULL, gptl, r) != 0;
  if (keep) setenv("LD_LIBRARY_PATH", keep, 1);
  free(keep);
  printf("scope-profiler pair cost under three conditions: %d repetitions, scale %g%s%s\n", reps,
         scale, main_lib ? ", --main " : "", main_lib ? main_lib : "");
  report(main_lib != NULL, reps);
  return failed;
}
