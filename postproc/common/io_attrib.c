/* io_attrib.c - the bytes and time of the I/O calls each region made: the
 * figures of --summary --columns io_bytes,io_s and of the report's I/O
 * section (pproc.h).
 *
 * Exclusive attribution (docs/io.md, "Reading the records"): every I/O call
 * (a region io:* or MPI_File_*) counts in its own region's row and once
 * more in the row of the region whose call directly encloses it, when that
 * is not itself an I/O call (an io:pwrite inside MPI_File_write_at is the
 * same bytes one level down: it is not added to MPI_File_write_at's row).
 *   io_s: from the call tree the summary builds (stamps, call ids, or a
 *         profile-mode file's call paths): an I/O node's inclusive time.
 *   io_bytes: per call (sp_reader_io_calls_load; MPI_File_* regions of a
 *         file recorded with PROFILE_MPI alone: their MPI bytes), each
 *         call's parent found rank by rank from the call ids or the stamps
 *         (the innermost call that contains it on its thread), so memory
 *         follows one rank's calls. Errors (-1) add nothing. A profile-mode
 *         file has no per-call bytes: "-". */
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

int sp_io_region(const char *name) {
  return name && (strncmp(name, "io:", 3) == 0 || strncmp(name, "MPI_File_", 9) == 0);
}

/* One (region, thread) cell; thread -1 without --by-thread. */
typedef struct sp_io_cell {
  int region, thread, next; /* next: the region's next cell, -1 */
  int have_b, have_s;
  int64_t bytes, ns;
} sp_io_cell_t;

struct sp_io_attrib {
  sp_io_cell_t *v;
  int n, cap;
  int *first; /* per region: first cell, -1 */
  int ng;
  int by_thread;
};

static sp_io_cell_t *sp_io_cell(sp_io_attrib_t *x, int g, int thread) {
  if (!x->by_thread) thread = -1;
  if (g < 0 || g >= x->ng) return NULL;
  for (int i = x->first[g]; i >= 0; i = x->v[i].next)
    if (x->v[i].thread == thread) return &x->v[i];
  if (x->n == x->cap) {
    int cap = x->cap ? 2 * x->cap : 64;
    sp_io_cell_t *v = realloc(x->v, (size_t)cap * sizeof *v);
    if (!v) return NULL;
    x->v = v;
    x->cap = cap;
  }
  sp_io_cell_t *c = &x->v[x->n];
  memset(c, 0, sizeof *c);
  c->region = g;
  c->thread = thread;
  c->next = x->first[g];
  x->first[g] = x->n++;
  return c;
}

/* io_s: each I/O node of the tree into its own cell and its parent's. */
static int sp_io_tree(sp_io_attrib_t *x, sp_reader_t *r, const sp_reader_tree_t *t) {
  int nn = sp_reader_tree_num_nodes(t);
  for (int i = 0; i < nn; i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    if (!sp_io_region(sp_reader_region_name(r, nd->region)) || nd->calls == 0) continue;
    sp_io_cell_t *c = sp_io_cell(x, nd->region, nd->thread);
    if (!c) return -1;
    c->have_s = 1;
    c->ns += nd->inclusive;
    if (nd->parent < 0) continue;
    const sp_reader_tree_node_t *p = sp_reader_tree_node(t, nd->parent);
    if (sp_io_region(sp_reader_region_name(r, p->region))) continue;
    if (!(c = sp_io_cell(x, p->region, nd->thread))) return -1;
    c->have_s = 1;
    c->ns += nd->inclusive;
  }
  return 0;
}

/* A call of the rank: its pair (index into the loaded pairs) and number. */
typedef struct sp_io_call {
  int64_t start, end;
  int32_t thread;
  int pair;
  int64_t k;
} sp_io_call_t;

static int sp_io_call_cmp(const void *a, const void *b) {
  const sp_io_call_t *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1; /* the enclosing one first */
  return (x->pair > y->pair) - (x->pair < y->pair);
}

/* parent[c] (numbered pair by pair as sp_reader_call_parents numbers them)
 * from the stamps: the innermost call containing c on its thread. */
static int sp_io_stamp_parents(const sp_reader_intervals_t *iv, int np, const int64_t *base,
                               int64_t total, int64_t *parent) {
  sp_io_call_t *c = malloc((size_t)(total > 0 ? total : 1) * sizeof *c);
  int64_t *stack = malloc((size_t)(total > 0 ? total : 1) * sizeof *stack);
  if (!c || !stack) {
    free(c), free(stack);
    return -1;
  }
  int64_t m = 0;
  for (int p = 0; p < np; p++)
    for (int64_t k = 0; k < iv[p].n; k++)
      c[m++] = (sp_io_call_t){iv[p].start[k], iv[p].end[k],
                              iv[p].thread_ids ? iv[p].thread_ids[k] : 0, p, k};
  if (m > 1) qsort(c, (size_t)m, sizeof *c, sp_io_call_cmp);
  int64_t depth = 0;
  for (int64_t i = 0; i < m; i++) {
    if (i > 0 && c[i].thread != c[i - 1].thread) depth = 0;
    /* sorted by start: the top contains c[i] when it ends no earlier */
    while (depth > 0 && c[stack[depth - 1]].end < c[i].end) depth--;
    const sp_io_call_t *up = depth > 0 ? &c[stack[depth - 1]] : NULL;
    parent[base[c[i].pair] + c[i].k] = up ? base[up->pair] + up->k : -1;
    stack[depth++] = i;
  }
  free(c);
  free(stack);
  return 0;
}

/* The bytes of call k of pair p: into its cell and its parent's. */
static int sp_io_bytes_of(sp_io_attrib_t *x, sp_reader_t *r, const int *regs, const int64_t *base,
                          int np, const int64_t *parent, const sp_reader_intervals_t *iv, int p,
                          const int64_t *bytes) {
  for (int64_t k = 0; k < iv[p].n; k++) {
    int tid = iv[p].thread_ids ? iv[p].thread_ids[k] : 0;
    int64_t b = bytes[k] > 0 ? bytes[k] : 0;
    sp_io_cell_t *c = sp_io_cell(x, regs[p], tid);
    if (!c) return -1;
    c->have_b = 1;
    c->bytes += b;
    int64_t up = parent[base[p] + k];
    if (up < 0) continue;
    int lo = 0, hi = np - 1; /* the pair q with base[q] <= up < base[q + 1] */
    while (lo < hi) {
      int mid = lo + (hi - lo + 1) / 2;
      if (base[mid] <= up)
        lo = mid;
      else
        hi = mid - 1;
    }
    int q = lo;
    if (sp_io_region(sp_reader_region_name(r, regs[q]))) continue;
    if (!(c = sp_io_cell(x, regs[q], tid))) return -1;
    c->have_b = 1;
    c->bytes += b;
  }
  return 0;
}

/* io_bytes of the j-th selected rank. */
static int sp_io_rank(sp_io_attrib_t *x, const sp_selection_t *sel, int j) {
  sp_reader_t *r = sel->reader;
  int k = sel->ranks[j], np = sel->nregions, rc = 0;
  sp_reader_intervals_t *iv = calloc((size_t)(np ? np : 1), sizeof *iv);
  int64_t *base = calloc((size_t)np + 1, sizeof *base);
  if (!iv || !base) rc = SP_EXIT_IO;
  int any = 0;
  for (int p = 0; rc == 0 && p < np; p++) {
    rc = sp_load_intervals(r, sel->regions[p], k, &iv[p]);
    base[p + 1] = base[p] + iv[p].n;
    any |= iv[p].n > 0 && sp_io_region(sp_reader_region_name(r, sel->regions[p]));
  }
  int64_t *parent =
      rc == 0 && any ? malloc((size_t)(base[np] ? base[np] : 1) * sizeof *parent) : NULL;
  if (rc == 0 && any && !parent) rc = SP_EXIT_IO;
  if (rc == 0 && any) {
    int e = sp_reader_has_call_ids(r) ? sp_reader_call_parents(r, k, iv, sel->regions, np, parent)
                                      : sp_io_stamp_parents(iv, np, base, base[np], parent);
    if (e != 0 && sp_reader_has_call_ids(r)) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(r));
      rc = sp_exit_for_reader(e);
    } else if (e != 0) {
      sp_msg(SP_QUIET, "out of memory");
      rc = SP_EXIT_IO;
    }
  }
  for (int p = 0; rc == 0 && any && p < np; p++) {
    int g = sel->regions[p];
    if (iv[p].n == 0 || !sp_io_region(sp_reader_region_name(r, g))) continue;
    sp_reader_io_calls_t io;
    sp_reader_mpi_t mpi = {0};
    if (sp_reader_io_calls_load(r, g, k, &io) != 0) io.present = 0;
    if (!io.present && sp_reader_mpi_load(r, g, k, &mpi) != 0) mpi.present = 0;
    const int64_t *bytes = io.present ? io.bytes : mpi.present ? mpi.bytes : NULL;
    if (bytes && sp_io_bytes_of(x, r, sel->regions, base, np, parent, iv, p, bytes) != 0)
      rc = SP_EXIT_IO;
    sp_reader_io_calls_free(&io);
    sp_reader_mpi_free(&mpi);
  }
  for (int p = 0; iv && p < np; p++) sp_reader_intervals_free(&iv[p]);
  free(iv);
  free(base);
  free(parent);
  return rc;
}

int sp_io_attrib_build(const sp_selection_t *sel, const sp_reader_tree_t *t, int by_thread,
                       int want_bytes, sp_io_attrib_t **out) {
  sp_io_attrib_t *x = calloc(1, sizeof *x);
  *out = NULL;
  if (!x) return SP_EXIT_IO;
  x->ng = sp_reader_num_regions(sel->reader);
  x->by_thread = by_thread;
  x->first = malloc((size_t)(x->ng ? x->ng : 1) * sizeof *x->first);
  int rc = x->first ? 0 : SP_EXIT_IO;
  for (int g = 0; rc == 0 && g < x->ng; g++) x->first[g] = -1;
  if (rc == 0 && t && sp_io_tree(x, sel->reader, t) != 0) rc = SP_EXIT_IO;
  for (int j = 0; rc == 0 && want_bytes && j < sel->nranks; j++) rc = sp_io_rank(x, sel, j);
  if (rc != 0) {
    sp_io_attrib_free(x);
    return rc;
  }
  *out = x;
  return 0;
}

int sp_io_attrib_get(const sp_io_attrib_t *x, int region, int thread, int64_t *bytes, int64_t *ns) {
  int have = 0;
  *bytes = *ns = 0;
  if (!x || region < 0 || region >= x->ng) return 0;
  for (int i = x->first[region]; i >= 0; i = x->v[i].next) {
    const sp_io_cell_t *c = &x->v[i];
    if (x->by_thread && c->thread != thread) continue;
    have |= (c->have_b ? 1 : 0) | (c->have_s ? 2 : 0);
    *bytes += c->bytes;
    *ns += c->ns;
  }
  return have;
}

void sp_io_attrib_free(sp_io_attrib_t *x) {
  if (!x) return;
  free(x->v);
  free(x->first);
  free(x);
}
