/* test_reader_tree.c - the call-tree API (sp_reader_tree_*) on basic.h5,
 * values computed by hand from sp_make_profile.c (times after T0, s):
 *   main [0.1 r, 10] on ranks r = 0..3; solver/step r+1 calls inside it;
 *   50% inside rank 1's second step; io [9, 9.25] on ranks 0 and 2;
 *   omp on rank 0: thread 0 [2, 2.2], [2.4, 2.5] (inside main), thread 1
 *   [0.05, 0.1] (a root of thread 1); a/b [9.5, 9.6] on rank 0.
 * usage: test_reader_tree CASE DIR; each case is its own CTest test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler_reader.h"
#include "sp_reader_test.h"

#define CHECK_NEAR(a, b)                                                                         \
  do {                                                                                           \
    double va_ = (double)(a), vb_ = (double)(b);                                                 \
    if (fabs(va_ - vb_) > 1e-6 * fabs(vb_) + 1.0) {                                              \
      fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", __FILE__, __LINE__, #a, va_, vb_); \
      sp_test_failures++;                                                                        \
    }                                                                                            \
  } while (0)

#define S 1000000000.0 /* ns per s */

static sp_reader_t *open_basic(const char *dir) { return sp_test_open(dir, "basic.h5"); }

static const char *node_name(sp_reader_t *r, const sp_reader_tree_t *t, int i) {
  return sp_reader_region_name(r, sp_reader_tree_node(t, i)->region);
}

/* Depth-first order, children by inclusive time; figures of main and its children. */
static void test_structure(sp_reader_t *r) {
  sp_reader_tree_t *t;
  CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1, 0, &t), 0);
  CHECK_INT(sp_reader_tree_num_nodes(t), 7);
  const char *want[7] = {"main", "solver/step", "50%", "io", "omp", "a/b", "omp"};
  const int parent[7] = {-1, 0, 1, 0, 0, 0, -1};
  for (int i = 0; i < 7 && sp_reader_tree_num_nodes(t) == 7; i++) {
    if (strcmp(node_name(r, t, i), want[i]) != 0) {
      fprintf(stderr, "node %d is %s, expected %s\n", i, node_name(r, t, i), want[i]);
      sp_test_failures++;
    }
    CHECK_INT(sp_reader_tree_node(t, i)->parent, parent[i]);
  }
  const sp_reader_tree_node_t *m = sp_reader_tree_node(t, 0);
  CHECK_INT(m->calls, 4);
  CHECK_NEAR(m->inclusive, 39.4 * S);
  CHECK_NEAR(m->exclusive, 28.5 * S);
  CHECK_NEAR(m->rank_min, 9.7 * S);
  CHECK_NEAR(m->rank_max, 10.0 * S);
  CHECK_INT(m->max_rank, 0);
  CHECK_INT(m->first_child, 1);
  CHECK_INT(m->next_sibling, 6);
  const sp_reader_tree_node_t *w = sp_reader_tree_node(t, 6);
  CHECK_INT(w->worker_calls, 1);
  CHECK_INT(w->thread, -1);
  CHECK_NEAR(w->inclusive, 0.05 * S);
  CHECK_NEAR(sp_reader_tree_node(t, 1)->share * 1e6, 10.0 / 39.4 * 1e6);
  CHECK_NEAR(sp_reader_tree_roots_inclusive(t), 39.45 * S);
  sp_reader_tree_rank_t rk;
  CHECK_INT(sp_reader_tree_rank(t, 1, 3, &rk), 0);
  CHECK_INT(rk.rank, 3);
  CHECK_INT(rk.calls, 4);
  CHECK_NEAR(rk.inclusive, 5.0 * S);
  CHECK_INT(sp_reader_tree_rank(t, 1, 4, &rk), SP_READER_EINVAL);
  sp_reader_tree_free(t);
}

static void test_by_thread(sp_reader_t *r) {
  sp_reader_tree_t *t;
  CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1, SP_READER_TREE_BY_THREAD, &t), 0);
  int seen = 0;
  for (int i = 0; i < sp_reader_tree_num_nodes(t); i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    if (strcmp(node_name(r, t, i), "omp") != 0) continue;
    seen++;
    CHECK_INT(nd->thread, nd->parent < 0 ? 1 : 0);
  }
  CHECK_INT(seen, 2);
  sp_reader_tree_free(t);
}

/* Selected regions only: with main left out, solver/step is a root. */
static void test_selection(sp_reader_t *r) {
  int g[1] = {-1}, k[2] = {1, 3};
  for (int i = 0; i < sp_reader_num_regions(r); i++)
    if (strcmp(sp_reader_region_name(r, i), "solver/step") == 0) g[0] = i;
  sp_reader_tree_t *t;
  CHECK_INT(sp_reader_tree_build(r, g, 1, k, 2, 0, &t), 0);
  CHECK_INT(sp_reader_tree_num_nodes(t), 1);
  CHECK_INT(sp_reader_tree_num_ranks(t), 2);
  CHECK_INT(sp_reader_tree_node(t, 0)->parent, -1);
  CHECK_INT(sp_reader_tree_node(t, 0)->calls, 2 + 4);
  CHECK_NEAR(sp_reader_tree_node(t, 0)->rank_mean, (1.5 + 5.0) / 2 * S);
  sp_reader_tree_free(t);
}

static void test_durations(sp_reader_t *r) {
  sp_reader_tree_t *t;
  sp_reader_durations_t d;
  int g = -1;
  for (int i = 0; i < sp_reader_num_regions(r); i++)
    if (strcmp(sp_reader_region_name(r, i), "solver/step") == 0) g = i;
  CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1, 0, &t), 0);
  CHECK_INT(sp_reader_tree_durations(t, g, 1, &d), SP_READER_EINVAL); /* not asked for */
  sp_reader_tree_free(t);
  CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1, SP_READER_TREE_DURATIONS, &t), 0);
  CHECK_INT(sp_reader_tree_durations(t, g, 1, &d), 0); /* rank 1: 0.5 s and 1 s */
  CHECK_INT(d.n, 2);
  CHECK_NEAR(d.total, 1.5 * S);
  CHECK_NEAR(d.mean, 0.75 * S);
  CHECK_NEAR(d.m2 / 1e9, 2 * 0.25 * 0.25 * S * S / 1e9);
  CHECK_INT(d.min, 500000000);
  CHECK_INT(d.max, 1000000000);
  CHECK_INT(d.first, 500000000);
  CHECK_INT(d.last, 1000000000);
  sp_reader_tree_free(t);
}

static const char *data_dir;

/* backwards_P.h5 (make_tree_files.py): the tree, with and without the
 * duration statistics, refuses the call that ends before it starts, as
 * sp_reader_load does, wherever it lies in the passes over the stamps. */
static void test_backwards(sp_reader_t *unused) {
  (void)unused;
  static const int pos[] = {0, 5, 4100, 5999};
  for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
    char path[4096], msg[512], want[64];
    snprintf(path, sizeof path, "%s/backwards_%d.h5", data_dir, pos[i]);
    snprintf(want, sizeof want, "interval %d ends before it starts", pos[i]);
    sp_reader_t *r = NULL;
    if (sp_reader_open(path, &r, msg, sizeof msg) != 0) {
      fprintf(stderr, "open %s: %s\n", path, msg);
      sp_test_failures++;
      continue;
    }
    /* Totals only: the stream stops at the call and the loaded build says why. */
    static const unsigned fl[] = {0, SP_READER_TREE_DURATIONS, SP_READER_TREE_TOTALS};
    for (size_t q = 0; q < sizeof fl / sizeof fl[0]; q++) {
      unsigned flags = fl[q];
      sp_reader_tree_t *t = (sp_reader_tree_t *)&t;
      CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1, flags, &t), SP_READER_EDATA);
      CHECK_INT(t == NULL, 1);
      if (!strstr(sp_reader_errmsg(r), want)) {
        fprintf(stderr, "%s, flags %u: '%s' lacks '%s'\n", path, flags, sp_reader_errmsg(r), want);
        sp_test_failures++;
      }
    }
    sp_reader_close(r);
  }
}

/* Nodes of a and b the same, figure by figure (the per-rank ones apart). */
static void same_nodes(const char *what, const sp_reader_tree_t *a, const sp_reader_tree_t *b) {
  CHECK_INT(sp_reader_tree_num_nodes(b), sp_reader_tree_num_nodes(a));
  int n = sp_reader_tree_num_nodes(a);
  for (int i = 0; i < n && sp_reader_tree_num_nodes(b) == n; i++) {
    const sp_reader_tree_node_t *x = sp_reader_tree_node(a, i), *y = sp_reader_tree_node(b, i);
    if (x->parent != y->parent || x->region != y->region || x->depth != y->depth ||
        x->timed != y->timed || x->calls != y->calls || x->worker_calls != y->worker_calls ||
        x->inclusive != y->inclusive || x->exclusive != y->exclusive ||
        x->first_child != y->first_child || x->next_sibling != y->next_sibling) {
      fprintf(stderr,
              "%s: node %d differs: parent %d/%d region %d/%d calls %lld/%lld incl %lld/%lld\n",
              what, i, x->parent, y->parent, x->region, y->region, (long long)x->calls,
              (long long)y->calls, (long long)x->inclusive, (long long)y->inclusive);
      sp_test_failures++;
      return;
    }
  }
}

/* A tree of totals (SP_READER_TREE_TOTALS: streamed where each pair's
 * calls come in order, else loaded) has the whole tree's nodes, on files
 * that stream (blocks, repeats, random) and files that do not (recursion
 * and worker threads in tree.h5), all ranks or some; no per-rank figures. */
static void test_totals(sp_reader_t *unused) {
  (void)unused;
  static const char *files[] = {"basic.h5",     "tree.h5",       "tree_b.h5",
                                "blocks.h5",    "repeats.h5",    "random.h5",
                                "durations.h5", "ref_nested.h5", "ref_ids_dense.h5"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    sp_reader_t *r = sp_test_open(data_dir, files[f]);
    if (!r) continue;
    int nk = sp_reader_num_ranks(r), some[2] = {nk - 1, 0};
    for (int sel = 0; sel < 2; sel++) {
      const int *ranks = sel ? some : NULL;
      int nr = sel ? (nk > 1 ? 2 : 1) : -1;
      sp_reader_tree_t *a = NULL, *b = NULL;
      CHECK_INT(sp_reader_tree_build(r, NULL, -1, ranks, nr, 0, &a), 0);
      CHECK_INT(sp_reader_tree_build(r, NULL, -1, ranks, nr, SP_READER_TREE_TOTALS, &b), 0);
      if (a && b) {
        char what[256];
        snprintf(what, sizeof what, "%s (%s)", files[f], sel ? "some ranks" : "all ranks");
        same_nodes(what, a, b);
        CHECK_INT(sp_reader_tree_num_ranks(b), 0);
        CHECK_INT(sp_reader_tree_roots_inclusive(b), sp_reader_tree_roots_inclusive(a));
      }
      sp_reader_tree_free(a);
      sp_reader_tree_free(b);
    }
    sp_reader_close(r);
  }
}

static void test_args(sp_reader_t *r) {
  sp_reader_tree_t *t = (sp_reader_tree_t *)&t;
  int bad = sp_reader_num_regions(r);
  CHECK_INT(sp_reader_tree_build(NULL, NULL, -1, NULL, -1, 0, &t), SP_READER_EINVAL);
  CHECK_INT(t == NULL, 1);
  CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1, 8, &t), SP_READER_EINVAL);
  CHECK_INT(sp_reader_tree_build(r, NULL, -1, NULL, -1,
                                 SP_READER_TREE_TOTALS | SP_READER_TREE_DURATIONS, &t),
            SP_READER_EINVAL);
  CHECK_INT(sp_reader_tree_build(r, &bad, 1, NULL, -1, 0, &t), SP_READER_EINVAL);
  CHECK_INT(strstr(sp_reader_errmsg(r), "out of range") != NULL, 1);
  CHECK_INT(sp_reader_tree_num_nodes(NULL), 0);
  CHECK_INT(sp_reader_tree_node(NULL, 0) == NULL, 1);
  sp_reader_tree_free(NULL);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(sp_reader_t *);
  } cases[] = {{"structure", test_structure}, {"by_thread", test_by_thread},
               {"selection", test_selection}, {"durations", test_durations},
               {"args", test_args},           {"backwards", test_backwards},
               {"totals", test_totals}};
  if (argc != 3) {
    fprintf(stderr, "usage: test_reader_tree CASE DIR\n");
    return 2;
  }
  data_dir = argv[2];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (strcmp(argv[1], cases[i].name) == 0) {
      sp_reader_t *r = open_basic(argv[2]);
      cases[i].fn(r);
      sp_reader_close(r);
      return sp_test_failures ? 1 : 0;
    }
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
