/* test_samples.c - SCOPE_PROFILER_SAMPLE_MS: the sampler thread's samples,
 * checked by check_samples.py (h5py/numpy) against what the cases did.
 * Each case is its own CTest test (tests/samples/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <scope_profiler.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ALLOC_BYTES (200L << 20) /* touched inside region "alloc" */

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {}
}

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* VmRSS of /proc/self/status, bytes, written to <name>.proc for the checker. */
static void note_proc(const char *name) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  char path[256];
  snprintf(path, sizeof path, "%s.proc", name);
  FILE *o = fopen(path, "w");
  if (o) {
    fprintf(o, "%ld %.6f\n", kb * 1024, cpu_s());
    fclose(o);
  }
}

/* before (idle), alloc (200 MB touched, held, freed), spin (CPU), after. */
static void run_regions(void) {
  int before = sp_region("before"), alloc = sp_region("alloc"), spin = sp_region("spin"),
      after = sp_region("after");
  sp_start(before);
  sleep_ms(150);
  sp_stop(before);
  sp_start(alloc);
  char *p = malloc(ALLOC_BYTES);
  if (p) memset(p, 1, ALLOC_BYTES);
  sleep_ms(300); /* held long enough for late samples on a loaded machine */
  if (p) printf("touched %d\n", p[ALLOC_BYTES / 2]);
  free(p);
  sp_stop(alloc);
  sp_start(spin);
  volatile double x = 0;
  double c0 = cpu_s();
  while (cpu_s() - c0 < 0.2) x += 1.0;
  sp_stop(spin);
  sp_start(after);
  sleep_ms(100);
  sp_stop(after);
}

static int setup_file(const char *file, int sample_ms) {
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = file;
  cfg.sample_ms = sample_ms;
  return sp_setup(&cfg);
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  char file[128];
  snprintf(file, sizeof file, "%s.h5", c);
  if (!strcmp(c, "regions") || !strcmp(c, "unfinalized") || !strcmp(c, "long_period")) {
    if (setup_file(file, 0) != 0) return 1; /* the period comes from the environment */
    run_regions();
    note_proc(c);
    if (!strcmp(c, "unfinalized")) exit(0); /* atexit: the spill file keeps the samples */
    return sp_finalize() == 0 ? 0 : 1;
  }
  if (!strcmp(c, "sigterm")) { /* SCOPE_PROFILER_FLUSH_SIGNALS=TERM: the flush keeps them */
    if (setup_file(file, 0) != 0) return 1;
    run_regions();
    note_proc(c);
    raise(SIGTERM); /* the watcher flushes, then the default action ends the process */
    sleep_ms(10000);
    return 3;
  }
  if (!strcmp(c, "field")) { /* sp_config.sample_ms, no environment */
    if (setup_file(file, 5) != 0) return 1;
    run_regions();
    return sp_finalize() == 0 ? 0 : 1;
  }
  if (!strcmp(c, "bad_values")) {
    int bad[] = {-1, 3600001};
    for (int i = 0; i < 2; i++)
      if (setup_file(file, bad[i]) != SP_EINVAL) return 10 + i;
    setenv("SCOPE_PROFILER_SAMPLE_MS", "ten", 1); /* ignored with a message: off */
    if (setup_file(file, 0) != 0) return 12;
    run_regions();
    return sp_finalize() == 0 ? 0 : 13;
  }
  if (!strcmp(c, "fork")) { /* the child has no sampler until its own sp_setup */
    if (setup_file(file, 0) != 0) return 1;
    sleep_ms(50);
    pid_t pid = fork();
    if (pid == 0) {
      sleep_ms(30);
      if (setup_file("fork_child.h5", 5) != 0) _exit(3);
      int r = sp_region("child_work");
      sp_start(r);
      sleep_ms(100);
      sp_stop(r);
      exit(sp_finalize() == 0 ? 0 : 4); /* exit(): the atexit handlers run in the child */
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "child failed: %d\n", st);
      return 2;
    }
    /* A forked child's session writes <stem>.<pid><ext>: named for the checker. */
    char child_file[64];
    snprintf(child_file, sizeof child_file, "fork_child.%ld.h5", (long)pid);
    if (rename(child_file, "fork_child.h5") != 0) return 5;
    run_regions();
    note_proc(c);
    return sp_finalize() == 0 ? 0 : 1;
  }
  fprintf(stderr, "unknown case '%s'\n", c);
  return 2;
}
