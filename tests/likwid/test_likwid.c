/* test_likwid.c - use_likwid in a LIKWID build; run as
 *   mpirun -np N test_likwid CASE
 *
 * The marker functions are observed by a shim: this executable defines
 * likwid_marker* (exported, so they come before liblikwid's in symbol
 * lookup), logs each call and forwards it to the real LIKWID through
 * dlsym(RTLD_NEXT). LIKWID itself runs as it would outside likwid-perfctr
 * (these VMs have no usable counters): its calls report "not initialised".
 *
 * Cases:
 *   markers        names, tags and nesting of the marker calls (1 rank)
 *   mode_count     time_trace=0: counts only, plus markers
 *   mode_trace     time_trace=1, flush off: stamps in memory, plus markers
 *   mode_spill     time_trace=1, flush on with a tiny buffer: spill files
 *   results        a marker file in LIKWID 5's format is read back and
 *                  stored as rank<N>/likwid (SCOPE_PROFILER_LIKWID_MARKER_FILE)
 *   results_both   the same with SCOPE_PROFILER_LAYOUT=both: also likwid/ in
 *                  results_both.h5.columnar.h5 (check_likwid_columnar.py)
 *   results_columnar  the same in the columnar layout alone, without a
 *                  warning naming LIKWID
 *   mode_aggregate profile mode and the trace (aggregate=1, time_trace=1):
 *                  markers, and the results as in `results` in the trace;
 *                  the aggregates in mode_aggregate.aggregate.h5
 *   mode_aggregate_alone  profile mode alone (time_trace=0), which writes no
 *                  trace for LIKWID's results: use_likwid refused in one
 *                  message, no marker call, the aggregates written
 * The mode cases write <case>.h5, checked by check_likwid.py. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <likwid-marker.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"

static int rank, size;

/* A failed check ends every rank, not only the one that saw it. */
static void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

/* ---- the shim ---------------------------------------------------------- */

static char shim_log[8192];
static pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;

static void shim_note(const char *what, const char *tag) {
  pthread_mutex_lock(&shim_lock);
  size_t n = strlen(shim_log);
  snprintf(shim_log + n, sizeof shim_log - n, "%s%s%s;", what, tag ? " " : "", tag ? tag : "");
  pthread_mutex_unlock(&shim_lock);
}

#define SHIM_REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

void likwid_markerInit(void) {
  shim_note("init", NULL);
  SHIM_REAL("likwid_markerInit", void (*)(void))();
}
void likwid_markerThreadInit(void) {
  shim_note("thread_init", NULL);
  SHIM_REAL("likwid_markerThreadInit", void (*)(void))();
}
void likwid_markerClose(void) {
  shim_note("close", NULL);
  SHIM_REAL("likwid_markerClose", void (*)(void))();
}
int likwid_markerStartRegion(const char *tag) {
  shim_note("start", tag);
  return SHIM_REAL("likwid_markerStartRegion", int (*)(const char *))(tag);
}
int likwid_markerStopRegion(const char *tag) {
  shim_note("stop", tag);
  return SHIM_REAL("likwid_markerStopRegion", int (*)(const char *))(tag);
}

static void shim_expect(const char *want) {
  if (strcmp(shim_log, want) != 0)
    sp_test_fail(__FILE__, __LINE__, "marker calls:\n  got  %s\n  want %s", shim_log, want);
  shim_log[0] = '\0';
}

/* ---- cases ------------------------------------------------------------- */

static int setup_aggregate; /* profile mode in the next setup() */

static void setup(const char *file, int time_trace, int flush, int64_t limit) {
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.use_likwid = 1;
  cfg.aggregate = setup_aggregate;
  cfg.time_trace = time_trace;
  cfg.flush_to_disk = flush;
  cfg.buffer_limit = limit;
  cfg.file_path = file;
  ASSERT_EQ(sp_setup(&cfg), 0);
}

static void rec(int h, int depth) {
  sp_start(h);
  if (depth > 1) rec(h, depth - 1);
  sp_stop(h);
}

static void *thread_body(void *arg) {
  (void)arg;
  SP_BLOCK("in thread") {}
  return NULL;
}

static void case_markers(void) {
  setup("markers.h5", 1, 0, 1000);
  int outer = sp_region("outer");
  int inner = sp_region("inner name\twith tab");
  int r = sp_region("recursive");
  sp_start(outer);
  sp_start(inner);
  sp_stop(inner);
  sp_stop(outer);
  shim_expect(
      "init;thread_init;start outer;start inner_name_with_tab;stop inner_name_with_tab;"
      "stop outer;");
  rec(r, 3); /* LIKWID cannot nest a region in itself: outermost call only */
  shim_expect("start recursive;stop recursive;");
  /* A second region whose tag would collide gets the handle appended. */
  int twin = sp_region("inner name with tab");
  sp_start(twin);
  sp_stop(twin);
  char want[512];
  snprintf(want, sizeof want, "start inner_name_with_tab~%d;stop inner_name_with_tab~%d;", twin,
           twin);
  shim_expect(want);
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, NULL, thread_body, NULL), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  shim_expect("thread_init;start in_thread;stop in_thread;");
  /* Long names are cut to 64 bytes at a character boundary. */
  char longname[200];
  memset(longname, 'x', sizeof longname);
  memcpy(longname + 63, "\xc3\xa9", 2); /* 'é' straddling byte 64 */
  longname[199] = '\0';
  sp_start_name(longname);
  sp_stop_name(longname);
  snprintf(want, sizeof want, "start %.63s;stop %.63s;", longname, longname);
  shim_expect(want);
  ASSERT_EQ(sp_finalize(), 0);
  shim_expect("close;");
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
}

/* Each rank: "work" 3 calls, "io" 2 calls (rank+1 nested "inner" in work). */
static void record_pattern(void) {
  int work = sp_region("work"), io = sp_region("io"), inner = sp_region("inner");
  for (int i = 0; i < 3; i++) {
    sp_start(work);
    if (i <= rank) {
      sp_start(inner);
      sp_stop(inner);
    }
    sp_stop(work);
  }
  for (int i = 0; i < 2; i++) SP_BLOCK_H(io) {
    }
}

static int spill_dir_has_data(const char *dir) {
  for (int tries = 0; tries < 100; tries++) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      char p[4096 + 512];
      struct stat s;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      if (e->d_name[0] != '.' && stat(p, &s) == 0 && s.st_size > 0) {
        closedir(d);
        return 1;
      }
    }
    if (d) closedir(d);
    usleep(50000); /* the spill writer is a background thread */
  }
  return 0;
}

static void case_mode(const char *file, int time_trace, int flush) {
  setup(file, time_trace, flush, flush ? 2 : 1000);
  record_pattern();
  if (flush) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s.spill", file);
    ASSERT(spill_dir_has_data(dir));
  }
  ASSERT(strstr(shim_log, "start work;start inner;stop inner;stop work;") != NULL);
  ASSERT(strstr(shim_log, "start io;stop io;") != NULL);
  ASSERT_EQ(sp_finalize(), 0);
}

/* Writes a marker file as likwid_markerClose (LIKWID 5) does, for our tags
 * plus a region of the program's own ("foreign", not ours: skipped). */
static void write_marker_file(const char *path) {
  FILE *f = fopen(path, "w");
  ASSERT(f != NULL);
  fprintf(f, "2 3 1\n0:work-0\n1:foreign-0\n2:inner-0\n");
  for (int t = 0; t < 2; t++) {
    fprintf(f, "0 0 %d %d %e 2 %e %e \n", t, 3, 0.5 + t, 1000.0 * (rank + 1) + t, 7.0);
    fprintf(f, "1 0 %d %d %e 2 %e %e \n", t, 1, 0.1, 1.0, 2.0);
    fprintf(f, "2 0 %d %d %e 2 %e %e \n", t, rank + 1, 0.25, 10.0 * (rank + 1), 3.0 + t);
  }
  fclose(f);
}

/* The results case into file, in layout (NULL: the default). */
static void results_in(const char *file, const char *layout) {
  char path[64];
  snprintf(path, sizeof path, "likwid_marker.%s.rank%d.txt", file, rank);
  write_marker_file(path);
  setenv("SCOPE_PROFILER_LIKWID_MARKER_FILE", path, 1);
  setenv("LIKWID_EVENTS", "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC0,CPU_CLK_UNHALTED_CORE:FIXC1",
         1);
  if (layout) setenv("SCOPE_PROFILER_LAYOUT", layout, 1);
  setup(file, 1, 0, 1000);
  record_pattern();
  ASSERT_EQ(sp_finalize(), 0);
  unlink(path);
}

static void case_results(void) { results_in("results.h5", NULL); }
/* Both layouts from the same run: results_both.h5 and its .columnar.h5. */
static void case_results_both(void) { results_in("results_both.h5", "both"); }
/* The columnar layout alone: LIKWID's results in likwid/, no warning. */
static void case_results_columnar(void) {
  sp_test_stderr_begin();
  results_in("results_columnar.h5", "columnar");
  char *err = sp_test_stderr_end();
  ASSERT(strstr(err, "LIKWID") == NULL);
  free(err);
}

static void case_mode_aggregate(void) {
  char path[64];
  snprintf(path, sizeof path, "likwid_marker_agg.rank%d.txt", rank);
  write_marker_file(path);
  setenv("SCOPE_PROFILER_LIKWID_MARKER_FILE", path, 1);
  setenv("LIKWID_EVENTS", "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC0,CPU_CLK_UNHALTED_CORE:FIXC1",
         1);
  setup_aggregate = 1;
  case_mode("mode_aggregate.h5", 1, 0);
  unlink(path);
}

static void case_mode_aggregate_alone(void) {
  setup_aggregate = 1;
  sp_test_stderr_begin();
  setup("mode_aggregate_alone.h5", 0, 0, 1000);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "use_likwid with profile mode alone", 1);
  free(err);
  shim_log[0] = '\0';
  record_pattern();
  ASSERT(strstr(shim_log, "start") == NULL); /* no marker call */
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(strstr(shim_log, "close") == NULL);
}

static void case_mode_count(void) { case_mode("mode_count.h5", 0, 0); }
static void case_mode_trace(void) { case_mode("mode_trace.h5", 1, 0); }
static void case_mode_spill(void) { case_mode("mode_spill.h5", 1, 1); }

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(markers),
      SP_TEST_CASE(mode_count),
      SP_TEST_CASE(mode_trace),
      SP_TEST_CASE(mode_spill),
      SP_TEST_CASE(results),
      SP_TEST_CASE(results_both),
      SP_TEST_CASE(results_columnar),
      SP_TEST_CASE(mode_aggregate),
      SP_TEST_CASE(mode_aggregate_alone),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_test_set_rank(rank);
  sp_test_on_failure(abort_all);
  sp_test_case_run(c);
  MPI_Finalize();
  return 0;
}
