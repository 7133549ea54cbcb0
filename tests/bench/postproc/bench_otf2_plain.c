/* bench_otf2_plain.c - the baseline of bench_otf2 --stream: the same
 * ENTER/LEAVE events written through the OTF2 library alone, and the
 * export run as a separate process, each measured with wait4 (wall, CPU,
 * peak RSS) in the same run. */
#define _GNU_SOURCE /* wait4, nftw */
#include <ftw.h>
#include <fcntl.h>
#include <otf2/otf2.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_otf2.h"

extern char **environ;

static double sp_wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static OTF2_FlushType sp_pre(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f) {
  (void)u, (void)t, (void)l, (void)c, (void)f;
  return OTF2_FLUSH;
}
static OTF2_TimeStamp sp_post(void *u, OTF2_FileType t, OTF2_LocationRef l) {
  (void)u, (void)t, (void)l;
  return 0;
}

/* What a program that already has its events writes: per thread, rounds
 * of "outer" holding "inner", stamps 100 ns apart, with OTF2's defaults
 * (1 MiB chunks, no memory callbacks), as a tool would write them. */
static int sp_plain_write(const char *dir, long calls, int nthreads) {
  OTF2_Archive *ar =
      OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar) return 1;
  OTF2_FlushCallbacks fl = {.otf2_pre_flush = sp_pre, .otf2_post_flush = sp_post};
  OTF2_Archive_SetFlushCallbacks(ar, &fl, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(ar);
  OTF2_Archive_OpenEvtFiles(ar);
  long rounds = calls / (2L * nthreads);
  for (int t = 0; t < nthreads; t++) {
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)t);
    uint64_t ts = 1000;
    for (long i = 0; i < rounds; i++) {
      OTF2_EvtWriter_Enter(w, NULL, ts, 0);
      OTF2_EvtWriter_Enter(w, NULL, ts + 100, 1);
      OTF2_EvtWriter_Leave(w, NULL, ts + 200, 1);
      OTF2_EvtWriter_Leave(w, NULL, ts + 300, 0);
      ts += 400;
    }
    OTF2_Archive_CloseEvtWriter(ar, w);
  }
  OTF2_Archive_CloseEvtFiles(ar);
  OTF2_Archive_OpenDefFiles(ar);
  for (int t = 0; t < nthreads; t++)
    OTF2_Archive_CloseDefWriter(ar, OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)t));
  OTF2_Archive_CloseDefFiles(ar);
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 1000 + 400 * (uint64_t)rounds, 0);
  OTF2_GlobalDefWriter_WriteString(g, 0, "");
  OTF2_GlobalDefWriter_WriteString(g, 1, "outer");
  OTF2_GlobalDefWriter_WriteString(g, 2, "inner");
  for (int r = 0; r < 2; r++)
    OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)r, (OTF2_StringRef)(r + 1),
                                     (OTF2_StringRef)(r + 1), 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                          OTF2_UNDEFINED_LOCATION_GROUP);
  for (int t = 0; t < nthreads; t++)
    OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)t, 0, OTF2_LOCATION_TYPE_CPU_THREAD,
                                       (uint64_t)(2 * rounds * 2), 0);
  return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : 1;
}

/* Waits for pid and fills *m; 0 when it exited with status 0. */
static int sp_reap(pid_t pid, double t0, sp_measure_t *m) {
  int st = 0;
  struct rusage ru;
  if (wait4(pid, &st, 0, &ru) != pid) return 1;
  m->wall = sp_wall() - t0;
  m->cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  m->rss_mib = (double)ru.ru_maxrss / 1024.0;
  return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int sp_rm(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(p);
}

void sp_bench_rm(const char *dir) { nftw(dir, sp_rm, 16, FTW_DEPTH | FTW_PHYS); }

int sp_bench_plain(const char *dir, long calls, int nthreads, sp_measure_t *m) {
  sp_bench_rm(dir); /* OTF2 will not write over an archive */
  double t0 = sp_wall();
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) _exit(sp_plain_write(dir, calls, nthreads));
  return sp_reap(pid, t0, m);
}

int sp_bench_fork(int (*fn)(const char *), const char *arg, sp_measure_t *m) {
  double t0 = sp_wall();
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) _exit(fn(arg));
  return sp_reap(pid, t0, m);
}

int sp_bench_spawn(char *const argv[], sp_measure_t *m) {
  double t0 = sp_wall();
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return 1;
  return sp_reap(pid, t0, m);
}
