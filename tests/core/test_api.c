/* test_api.c - single-process cases of the C API: test_api CASE.
 * Runs without MPI_Init, so in an MPI build it also covers the serial path. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"

static void setup_file(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  ASSERT_EQ(sp_setup(&c), 0);
}

static void case_errors(void) {
  ASSERT(strcmp(sp_strerror(SP_EINVAL), "invalid argument") == 0);
  ASSERT(strcmp(sp_err_name(SP_EIO), "SP_EIO") == 0);
  ASSERT(strcmp(sp_err_name(0), "SP_OK") == 0);
  ASSERT(strcmp(sp_err_name(-999), "SP_UNKNOWN") == 0);
  ASSERT(strcmp(sp_strerror(-999), "unknown error") == 0);
  ASSERT_EQ(sp_version_number(), SP_VERSION_NUMBER);
  ASSERT(strcmp(sp_version_string(), SP_VERSION_STRING) == 0);
}

static void case_config_defaults(void) {
  sp_config c;
  memset(&c, 0x5a, sizeof c);
  sp_config_init(&c);
  ASSERT_EQ(c.profiling_activated, 1);
  ASSERT_EQ(c.use_likwid, 0);
  ASSERT_EQ(c.time_trace, 1);
  ASSERT_EQ(c.flush_to_disk, 1);
  ASSERT_EQ(c.buffer_limit, 100000);
  ASSERT(strcmp(c.file_path, "profiling_data.h5") == 0);
}

static void case_env_override(void) {
  setenv("SCOPE_PROFILER_FILE", "env_override.h5", 1);
  setenv("SCOPE_PROFILER_BUFFER_LIMIT", "3", 1);
  unlink("env_override.h5");
  setup_file("not_this.h5");
  for (int i = 0; i < 10; i++) {
    sp_start_name("env");
    sp_stop_name("env");
  }
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(sp_test_file_exists("env_override.h5"));
  ASSERT(!sp_test_file_exists("not_this.h5"));
  setenv("SCOPE_PROFILER_ENABLE", "0", 1);
  setup_file("disabled_by_env.h5");
  ASSERT_EQ(sp_is_active(), 0);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_test_partial_count("env_override.h5"), 0);
  unsetenv("SCOPE_PROFILER_ENABLE");
  unsetenv("SCOPE_PROFILER_FILE");
  unsetenv("SCOPE_PROFILER_BUFFER_LIMIT");
}

/* Mistyped values of the variables that choose finalize's ways and the
 * clock are reported at setup and ignored; the run still writes its file.
 * Valid values are not reported. */
static void case_env_ignored(void) {
  static const char *const vars[][3] = {
      {"SCOPE_PROFILER_METADATA", "colective", "root"},
      {"SCOPE_PROFILER_RAW_WRITE", "fast", "posix"},
      {"SCOPE_PROFILER_ROUND_BYTES", "1k", "8192"},
      {"SCOPE_PROFILER_CLOCK", "rdtsc", "monotonic"},
      {"SCOPE_PROFILER_FLUSH", "maybe", "1"},
      {"SCOPE_PROFILER_FINALIZE_TIMEOUT", "0", "30"},
  };
  static const char *const messages[] = {
      "scope-profiler: warning: ignoring SCOPE_PROFILER_METADATA=colective (expected auto, "
      "root or collective)",
      "ignoring SCOPE_PROFILER_RAW_WRITE=fast (expected auto, independent, posix, mpiio or "
      "collective)",
      "ignoring SCOPE_PROFILER_ROUND_BYTES=1k (expected an integer >= 4096)",
      "ignoring SCOPE_PROFILER_CLOCK=rdtsc (expected auto, tsc or monotonic)",
      "ignoring SCOPE_PROFILER_FLUSH=maybe (expected 0 or 1)",
      "ignoring SCOPE_PROFILER_FINALIZE_TIMEOUT=0 (expected an integer >= 1)",
  };
  for (int valid = 0; valid < 2; valid++) {
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
      setenv(vars[i][0], vars[i][1 + valid], 1);
    const char *path = valid ? "env_valid.h5" : "env_ignored.h5";
    unlink(path);
    sp_test_stderr_begin();
    setup_file(path);
    for (int k = 0; k < 10; k++) {
      sp_start_name("env");
      sp_stop_name("env");
    }
    int rc = sp_finalize();
    char *err = sp_test_stderr_end();
    ASSERT_EQ(rc, 0);
    ASSERT(sp_test_file_exists(path));
    if (valid) {
      sp_test_expect_msg(err, "ignoring", 0);
    } else {
      for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
        sp_test_expect_msg(err, messages[i], 1);
    }
    free(err);
  }
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i][0]);
}

static void case_handles(void) {
  setup_file("handles.h5");
  int a = sp_region("a"), b = sp_region("b");
  ASSERT(a >= 0 && b >= 0 && a != b);
  ASSERT_EQ(sp_region("a"), a);
  ASSERT_EQ(sp_region_n("abc", 1), a);
  ASSERT_EQ(sp_region(NULL), SP_EINVAL);
  ASSERT_EQ(sp_region(""), SP_EINVAL);
  ASSERT_EQ(sp_finalize(), 0);
}

static void case_misuse(void) {
  setup_file("misuse.h5");
  int a = sp_region("a"), b = sp_region("b");
  sp_stop(a); /* stop without start */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1);
  sp_start(a);
  sp_start(b);
  sp_stop(a); /* a is open, but b is innermost: b is dropped, a closed */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 1);
  sp_stop(b); /* nothing open any more */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 2);
  sp_start(12345);
  sp_start(-1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_INVALID_HANDLE), 2);
  sp_start_name(NULL);
  sp_start_name("");
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_BAD_NAME), 2);
  sp_start(a); /* left open: reported at finalize */
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 1);
  ASSERT(sp_test_file_exists("misuse.h5"));
}

static void case_before_setup(void) {
  ASSERT_EQ(sp_finalize(), 0); /* without setup: harmless */
  sp_start(0);                 /* the C macros skip the call entirely: nothing counted */
  sp_stop(0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_NOT_ACTIVE), 0);
  (sp_start)(0); /* the functions, as Fortran and Python call them */
  (sp_stop)(0);
  (sp_start_name)("x");
  (sp_stop_name)("x");
  ASSERT_EQ(sp_is_active(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_NOT_ACTIVE), 4); /* counted, reported once */
  setup_file("before_setup.h5");
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_finalize(), 0); /* twice: harmless */
  sp_start_name("after");      /* after finalize: no-op */
  sp_stop_name("after");
  ASSERT_EQ(sp_is_active(), 0);
}

static int block_with_return(void) {
  SP_BLOCK("returned") { return 1; }
  return 0;
}

static void case_block(void) {
  setup_file("block.h5");
  int n = 0;
  for (int i = 0; i < 10; i++) {
    SP_BLOCK("loop_body") {
      if (i % 3 == 0) continue; /* leaves the block, stops the region */
      if (i == 8) break;        /* likewise */
      n++;
    }
  }
  ASSERT_EQ(n, 5); /* 4 continues and 1 break of 10: break ends only the block */
  block_with_return();
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 1); /* the return */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
}

static void case_disabled(void) {
  unlink("disabled.h5");
  sp_config c;
  sp_config_init(&c);
  c.profiling_activated = 0;
  c.file_path = "disabled.h5";
  ASSERT_EQ(sp_setup(&c), 0);
  int h = sp_region("r");
  ASSERT(h >= 0);
  sp_start(h);
  sp_stop(h);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(!sp_test_file_exists("disabled.h5"));
}

/* The spill files move to $TMPDIR (here the test's own directory), where
 * they are kept after the failed finalize; the test then removes them. */
static void case_unwritable(void) {
  char tmp[512], spill[600];
  ASSERT(getcwd(tmp, sizeof tmp - 16) != NULL);
  strcat(tmp, "/unwritable.tmp");
  mkdir(tmp, 0755);
  setenv("TMPDIR", tmp, 1);
  snprintf(spill, sizeof spill, "%s/profile.h5.%ld.spill", tmp, (long)getpid());
  sp_config c;
  sp_config_init(&c);
  c.file_path = "/nonexistent-dir/x/profile.h5";
  c.buffer_limit = 4; /* the events reach the spill file before finalize */
  ASSERT_EQ(sp_setup(&c), SP_EPATH);
  for (int i = 0; i < 10; i++) {
    sp_start_name("still_runs");
    sp_stop_name("still_runs");
  }
  ASSERT(sp_finalize() < 0);
  DIR *d = opendir(spill);
  ASSERT(d != NULL);
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", spill, e->d_name);
    ASSERT_EQ(unlink(path), 0);
    files++;
  }
  closedir(d);
  ASSERT_EQ(files, 1);
  ASSERT_EQ(rmdir(spill), 0);
  rmdir(tmp);
}

static void case_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  long long before = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  long long now = sp_clock_now_ns();
  ASSERT(now >= before && now - before < 1000000000LL);
  setup_file("clock.h5");
  ASSERT(strcmp(sp_clock_name(), "tsc") == 0 || strcmp(sp_clock_name(), "monotonic") == 0);
  ASSERT_EQ(sp_finalize(), 0);
}

/* A serial file for check_profile.py (tag "serial"). */
static void case_serial_file(void) {
  setup_file("serial.h5");
  int outer = sp_region("outer");
  for (int i = 0; i < 50; i++) {
    sp_start(outer);
    sp_start_name("inner/slash");
    sp_stop_name("inner/slash");
    sp_stop(outer);
  }
  ASSERT_EQ(sp_finalize(), 0);
  FILE *f = fopen("serial.expect.rank0.json", "w");
  fprintf(f, "{\"outer\": 50, \"inner/slash\": 50}\n");
  fclose(f);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(errors),       SP_TEST_CASE(config_defaults), SP_TEST_CASE(env_override),
      SP_TEST_CASE(env_ignored),  SP_TEST_CASE(handles),         SP_TEST_CASE(misuse),
      SP_TEST_CASE(before_setup), SP_TEST_CASE(block),           SP_TEST_CASE(disabled),
      SP_TEST_CASE(unwritable),   SP_TEST_CASE(clock),           SP_TEST_CASE(serial_file),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  printf("%s: ok\n", c->name);
  return 0;
}
