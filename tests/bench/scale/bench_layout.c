/* bench_layout.c - the metadata half of finalize, alone: creating the
 * file's layout (every rank's groups, attributes and datasets) in one
 * process, as rank 0 does where ranks share CPUs.
 *
 *   bench_layout REGIONS RANKS... [-o FILE]
 *
 * For each RANKS it creates the layout of RANKS ranks x REGIONS regions
 * (5 events each, names like "region_007") with the library's own
 * layout.c, and prints
 *   ranks regions groups wall_s cpu_s us_per_group x_first
 * where x_first is us_per_group against the first RANKS given: 1.00 all
 * along is time linear in ranks x regions. In an mpirun job of many ranks
 * on few cores, finalize's layout phase adds to this the time rank 0
 * waits for a CPU and the offsets sent to the ranks; its VERBOSE line
 * gives the phase's wall and CPU time for comparison. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layout.h"

/* layout.c reports a full disk through the library's logger; here a
 * failure shows as the return code. */
void sp__log(int level, sp_log_kind_t kind, const char *fmt, ...) {
  (void)level;
  (void)kind;
  (void)fmt;
}

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void plans_free(sp_rank_plan_t *plans, sp_region_offsets_t **offs, int nranks) {
  for (int r = 0; r < nranks; r++) {
    for (int32_t i = 0; plans[r].regions && i < plans[r].nregions; i++)
      free(plans[r].regions[i].name);
    free(plans[r].regions);
    free(offs[r]);
  }
  free(plans);
  free(offs);
}

/* The plans finalize would gather from nranks ranks of nregions regions. */
static int plans_make(int nranks, int nregions, sp_rank_plan_t **plans_out,
                      sp_region_offsets_t ***offs_out) {
  sp_rank_plan_t *plans = calloc((size_t)nranks, sizeof *plans);
  sp_region_offsets_t **offs = calloc((size_t)nranks, sizeof *offs);
  int ok = plans && offs;
  for (int r = 0; ok && r < nranks; r++) {
    sp_rank_plan_t *p = &plans[r];
    p->rank = r;
    p->nthreads = 1;
    p->time_trace = 1;
    p->nregions = nregions;
    p->wall_time = (int64_t)time(NULL);
    snprintf(p->host, sizeof p->host, "node%03d", r / 64);
    p->regions = calloc((size_t)nregions, sizeof *p->regions);
    offs[r] = calloc((size_t)nregions + 1, sizeof **offs);
    ok = p->regions && offs[r];
    for (int i = 0; ok && i < nregions; i++) {
      char name[32];
      snprintf(name, sizeof name, "region_%03d", i);
      p->regions[i].name = strdup(name);
      p->regions[i].len = (uint32_t)strlen(name);
      p->regions[i].nevents = 5;
      p->regions[i].ncalls = 5;
      ok = p->regions[i].name != NULL;
    }
  }
  if (!ok) {
    if (plans && offs) plans_free(plans, offs, nranks);
    return -1;
  }
  *plans_out = plans;
  *offs_out = offs;
  return 0;
}

int main(int argc, char **argv) {
  const char *path = "bench_layout.h5";
  int nregions = argc > 1 ? atoi(argv[1]) : 0;
  if (argc < 3 || nregions <= 0) {
    fprintf(stderr, "usage: bench_layout REGIONS RANKS... [-o FILE]\n");
    return 2;
  }
  for (int i = 2; i + 1 < argc; i++)
    if (strcmp(argv[i], "-o") == 0) path = argv[i + 1];
  printf("ranks regions groups wall_s cpu_s us_per_group x_first\n");
  double first = 0;
  for (int a = 2; a < argc; a++) {
    if (strcmp(argv[a], "-o") == 0) {
      a++;
      continue;
    }
    int nranks = atoi(argv[a]);
    sp_rank_plan_t *plans;
    sp_region_offsets_t **offs;
    if (nranks <= 0 || plans_make(nranks, nregions, &plans, &offs) != 0) {
      fprintf(stderr, "bench_layout: cannot make %s ranks of plans\n", argv[a]);
      return 1;
    }
    double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    int rc = sp__layout_create(fapl, path, plans, nranks, offs);
    H5Pclose(fapl);
    double wall = seconds(CLOCK_MONOTONIC) - w0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    /* The last region's offsets are set only if every dataset was made. */
    int made = rc == 0 && offs[nranks - 1][nregions - 1].end_times > 0;
    plans_free(plans, offs, nranks);
    unlink(path);
    if (!made) {
      fprintf(stderr, "bench_layout: creating the layout of %d ranks failed (%d)\n", nranks, rc);
      return 1;
    }
    double groups = (double)nranks * nregions;
    double per = wall / groups * 1e6;
    if (first == 0) first = per;
    printf("%d %d %.0f %.3f %.3f %.2f %.2f\n", nranks, nregions, groups, wall, cpu, per,
           per / first);
    fflush(stdout);
  }
  return 0;
}
