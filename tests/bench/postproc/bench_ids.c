/* bench_ids.c - the call tree by the reference tool's call ids versus by the stamps.
 *
 * usage: bench_ids [DIR [CALLS [RANKS]]]
 * Writes two columnar (schema 2) files of the same calls, DIR/ids_with.h5
 * with events/call_ids and events/parent_ids, DIR/ids_without.h5 without
 * (default 3e6 calls over 2 ranks x 16 regions, nested three deep: step >
 * 3 phases > 4 kernels each). The ids are those the reference tool
 * assigns (max-models/scope-profiler, call_stack.py): a call's id is its
 * position on its rank in start order (0 .. n-1), its parent id the id of
 * the call that encloses it, -1 for a root.
 * Then, in turn, opens each file and builds its call tree (as --tree
 * does) in a forked child, SP_REPS times, and prints the medians of the
 * child's CPU seconds and of its peak RSS growth, their ratios, and
 * whether both trees agree (node by node: region, depth, calls,
 * inclusive and exclusive time). Nothing here asserts a figure. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_nested.h"
#include "scope_profiler_reader.h"

enum { SP_REPS = 5 };

static int sp_attr_int(hid_t f, const char *name, int v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(s);
  return rc;
}

static int sp_attr_str(hid_t f, const char *name, const char *v) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(v) + 1);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a >= 0 && H5Awrite(a, t, v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
  return rc;
}

/* The index and names of the columnar layout (P = ranks x regions pairs). */
static int sp_write_index(hid_t f, int nranks, int64_t iters) {
  hsize_t np = (hsize_t)nranks * SP_NREG;
  uint32_t *reg = malloc(np * sizeof *reg), *rk = malloc(np * sizeof *rk);
  uint64_t *off = malloc(np * sizeof *off), *cnt = malloc(np * sizeof *cnt);
  char names[SP_NREG][16];
  const char *np_[SP_NREG];
  for (int g = 0; g < SP_NREG; g++) {
    snprintf(names[g], sizeof names[g], "region_%02d", g);
    np_[g] = names[g];
  }
  for (hsize_t p = 0; p < np; p++) {
    reg[p] = (uint32_t)(p % SP_NREG);
    rk[p] = (uint32_t)(p / SP_NREG);
    off[p] = (uint64_t)p * (uint64_t)iters;
    cnt[p] = (uint64_t)iters;
  }
  hid_t rt = H5Gcreate2(f, "region_table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, H5T_VARIABLE);
  int rc = sp_h5_put(rt, "names", st, st, np_, SP_NREG);
  H5Tclose(st);
  H5Gclose(rt);
  hid_t ix = H5Gcreate2(f, "rank_region_index", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (rc == 0) rc = sp_h5_put(ix, "region_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, reg, np);
  if (rc == 0) rc = sp_h5_put(ix, "ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, rk, np);
  if (rc == 0) rc = sp_h5_put(ix, "event_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, off, np);
  if (rc == 0) rc = sp_h5_put(ix, "event_counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, cnt, np);
  H5Gclose(ix);
  free(reg);
  free(rk);
  free(off);
  free(cnt);
  return rc;
}

/* One file: with_ids adds events/call_ids and events/parent_ids. */
static int sp_generate(const char *path, int nranks, int64_t iters, int with_ids) {
  hsize_t ne = (hsize_t)nranks * SP_NREG * (hsize_t)iters;
  int64_t *col[4];
  for (int c = 0; c < 4; c++) col[c] = malloc(ne * sizeof **col);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (!col[0] || !col[1] || !col[2] || !col[3] || f < 0) return -1;
  uint64_t lcg = 42;
  size_t e = 0;
  for (int r = 0; r < nranks; r++)
    for (int g = 0; g < SP_NREG; g++)
      for (int64_t i = 0; i < iters; i++, e++)
        sp_nested_call(g, i, r, &lcg, &col[0][e], &col[1][e], &col[2][e], &col[3][e]);
  int rc = sp_attr_int(f, "scope_profiler_schema", 2);
  if (rc == 0) rc = sp_attr_str(f, "storage_layout", "columnar");
  if (rc == 0) rc = sp_write_index(f, nranks, iters);
  hid_t ev = H5Gcreate2(f, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const char *names[4] = {"start_times", "end_times", "call_ids", "parent_ids"};
  for (int c = 0; rc == 0 && c < (with_ids ? 4 : 2); c++)
    rc = sp_h5_put(ev, names[c], H5T_STD_I64LE, H5T_NATIVE_INT64, col[c], ne);
  H5Gclose(ev);
  for (int c = 0; c < 4; c++) free(col[c]);
  return H5Fclose(f) < 0 ? -1 : rc;
}

static long sp_maxrss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* What a child sends back: its figures and a digest of the tree. */
typedef struct sp_turn {
  double cpu;
  long rss_kib; /* peak RSS growth over the child's start */
  int nodes, ok;
  uint64_t digest;
} sp_turn_t;

static uint64_t sp_mix(uint64_t h, int64_t v) {
  h ^= (uint64_t)v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h;
}

/* Opens path and builds its whole call tree (what --tree does), in this process. */
static void sp_child(const char *path, sp_turn_t *out) {
  long rss0 = sp_maxrss_kib();
  double c = sp_cpu_seconds();
  sp_reader_t *r = NULL;
  sp_reader_tree_t *t = NULL;
  char err[256];
  out->ok = sp_reader_open(path, &r, err, sizeof err) == 0 &&
            sp_reader_tree_build(r, NULL, -1, NULL, -1, 0, &t) == 0;
  out->cpu = sp_cpu_seconds() - c;
  out->rss_kib = sp_maxrss_kib() - rss0;
  out->nodes = sp_reader_tree_num_nodes(t);
  out->digest = 0;
  for (int i = 0; i < out->nodes; i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    out->digest = sp_mix(out->digest, nd->region);
    out->digest = sp_mix(out->digest, nd->depth);
    out->digest = sp_mix(out->digest, nd->calls);
    out->digest = sp_mix(out->digest, nd->inclusive);
    out->digest = sp_mix(out->digest, nd->exclusive);
  }
  sp_reader_tree_free(t);
  sp_reader_close(r);
}

static int sp_turn(const char *path, sp_turn_t *out) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    sp_turn_t x;
    sp_child(path, &x);
    ssize_t w = write(fd[1], &x, sizeof x);
    _exit(w == (ssize_t)sizeof x ? 0 : 1);
  }
  close(fd[1]);
  ssize_t got = read(fd[0], out, sizeof *out);
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return got == (ssize_t)sizeof *out && WIFEXITED(st) && WEXITSTATUS(st) == 0 && out->ok ? 0 : -1;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  int64_t total = argc > 2 ? (int64_t)atof(argv[2]) : 3000000;
  int nranks = argc > 3 ? atoi(argv[3]) : 2;
  if (nranks < 1) nranks = 1;
  int64_t iters = total / ((int64_t)nranks * SP_NREG);
  if (iters < 1) iters = 1;
  char path[2][4096];
  snprintf(path[0], sizeof path[0], "%s/ids_with.h5", dir);
  snprintf(path[1], sizeof path[1], "%s/ids_without.h5", dir);
  for (int w = 0; w < 2; w++)
    if (sp_generate(path[w], nranks, iters, w == 0) != 0) {
      fprintf(stderr, "bench_ids: cannot write %s\n", path[w]);
      return 1;
    }
  printf("calls     %lld over %d ranks x %d regions, nested three deep, schema 2\n",
         (long long)iters * nranks * SP_NREG, nranks, SP_NREG);
  double cpu[2][SP_REPS], rss[2][SP_REPS], rc[SP_REPS], rm[SP_REPS];
  sp_turn_t x[2];
  for (int rep = 0; rep < SP_REPS; rep++) {
    for (int w = 0; w < 2; w++) {
      if (sp_turn(path[w], &x[w]) != 0) {
        fprintf(stderr, "bench_ids: the tree of %s failed\n", path[w]);
        return 1;
      }
      cpu[w][rep] = x[w].cpu;
      rss[w][rep] = (double)x[w].rss_kib / 1024.0;
    }
    rc[rep] = cpu[0][rep] / (cpu[1][rep] > 0 ? cpu[1][rep] : 1e-9);
    rm[rep] = rss[0][rep] / (rss[1][rep] > 0 ? rss[1][rep] : 1e-9);
  }
  double mb_rank = 1e-6 * (double)iters * SP_NREG, per_call[2];
  for (int w = 0; w < 2; w++)
    per_call[w] = sp_median_of(rss[w], SP_REPS) * 1048576.0 / (mb_rank * 1e6);
  printf("open + tree, medians of %d turns in forked children (CPU s, peak RSS growth):\n",
         SP_REPS);
  printf("ids       %.3f s  %7.1f MiB (%.0f B per call of the largest rank)\n",
         sp_median_of(cpu[0], SP_REPS), sp_median_of(rss[0], SP_REPS), per_call[0]);
  printf("stamps    %.3f s  %7.1f MiB (%.0f B per call of the largest rank)\n",
         sp_median_of(cpu[1], SP_REPS), sp_median_of(rss[1], SP_REPS), per_call[1]);
  printf("ratio     ids / stamps: time %.2f, memory %.2f (medians of the turns' ratios)\n",
         sp_median_of(rc, SP_REPS), sp_median_of(rm, SP_REPS));
  printf("same tree %s (%d nodes with ids, %d with stamps)\n",
         x[0].digest == x[1].digest && x[0].nodes == x[1].nodes ? "yes" : "NO", x[0].nodes,
         x[1].nodes);
  return x[0].digest == x[1].digest && x[0].nodes == x[1].nodes ? 0 : 1;
}
