/* reader_tree_repeat.c - repeated call patterns taken whole.
 *
 * A time-stepping code repeats the same calls: every step calls the same
 * phases and kernels in the same nesting. Sweeping each call (stack pops,
 * node lookup, per-rank cell) costs more than reading it, so the sweep
 * records the shape of a call's subtree the first time (its pattern: the
 * calls under it in start order, each with its pair, its parent and
 * previous sibling in the pattern and its node), and when a call of the
 * same node arrives again under the same open parent, takes the following
 * repeats of that pattern straight from the pairs' arrays: the i-th repeat
 * of a slot is the pair's call at pos + i * (its calls per repeat) + (its
 * occurrence in the pattern).
 *
 * The stamps must prove the repeat has the recorded nesting, so that the
 * sweep would have built the same tree: every call lies strictly inside
 * its parent and starts strictly after its previous sibling ends, each
 * repeat's root strictly after the previous one ends and strictly inside
 * the open parent, and no other call of the rank starts before the last
 * repeat ends. Ties (equal stamps) stop the run and leave those calls to
 * the sweep. The node cells then take sums: calls, the durations' sum per
 * slot, and exclusive time as a slot's sum minus its children's sums (the
 * sum of per-call differences). Runs only happen in the block order (one
 * thread, every pair's starts in order), where the sweep meets each pair's
 * calls in index order. */
#include <stdlib.h>
#include <string.h>

#include "reader_tree_internal.h"

/* The pattern recorded under a node, and how many calls of each pair it has. */
typedef struct sp_pattern {
  int nslots;
  sp_slot_t *slots;
  int fails;       /* takes in a row that found no run: past SP_MAX_FAILS, no more tries */
  int npairs;      /* pairs with calls in the pattern */
  int *pair, *per; /* [npairs]: the pair and its calls per repeat */
} sp_pattern_t;

/* Patterns are kept for subtrees up to this many calls; repeats are
 * checked and summed in chunks, of SP_CHUNK repeats first, then twice as
 * many after each chunk without a break, up to SP_CHUNK_MAX (long chunks
 * stream each array past the prefetchers, short ones keep a break cheap:
 * the chunk is checked again one repeat at a time); a root longer than
 * 2^SP_ROOT_BITS ns or a run of over 2^SP_RUN_BITS repeats is left to the
 * sweep, so that the sums of a run fit in 62 bits. */
enum {
  SP_MAX_SLOTS = 1024,
  SP_CHUNK = 64,
  SP_CHUNK_MAX = 1024,
  SP_ROOT_BITS = 40,
  SP_RUN_BITS = 21
};

/* A node whose pattern found no run this many times in a row is swept call
 * by call for the rest of the rank (e.g. a leaf called between others). */
enum { SP_MAX_FAILS = 6 };

sp_repeat_t *sp__repeat_new(const sp_pairs_t *ps) {
  sp_repeat_t *rep = calloc(1, sizeof *rep);
  if (!rep) return NULL;
  rep->ps = ps;
  rep->rec_depth = -1;
  for (int p = 0; p < ps->n; p++)
    rep->nkeys = ps->key[p] >= rep->nkeys ? ps->key[p] + 1 : rep->nkeys;
  size_t np = (size_t)(ps->n ? ps->n : 1);
  rep->pos = calloc(np, sizeof *rep->pos);
  rep->per = calloc(np, sizeof *rep->per);
  rep->pair_of_key = malloc((size_t)(rep->nkeys ? rep->nkeys : 1) * sizeof *rep->pair_of_key);
  rep->sum = malloc(SP_MAX_SLOTS * sizeof *rep->sum);
  rep->kids = malloc(SP_MAX_SLOTS * sizeof *rep->kids);
  rep->rec = malloc(SP_MAX_SLOTS * sizeof *rep->rec);
  if (!rep->pos || !rep->per || !rep->pair_of_key || !rep->sum || !rep->kids || !rep->rec) {
    sp__repeat_free(rep);
    return NULL;
  }
  for (int k = 0; k < rep->nkeys; k++) rep->pair_of_key[k] = -1;
  for (int p = 0; p < ps->n; p++) rep->pair_of_key[ps->key[p]] = p;
  return rep;
}

static void sp_pattern_free(sp_pattern_t *pt) {
  if (!pt) return;
  free(pt->slots);
  free(pt->pair);
  free(pt->per);
  free(pt);
}

void sp__repeat_free(sp_repeat_t *rep) {
  if (!rep) return;
  for (int i = 0; i < rep->nof; i++) sp_pattern_free(rep->of_node[i]);
  free(rep->of_node);
  free(rep->state);
  free(rep->pos);
  free(rep->per);
  free(rep->pair_of_key);
  free(rep->sum);
  free(rep->kids);
  free(rep->rec);
  free(rep);
}

/* ---- recording ---------------------------------------------------------- */

void sp__repeat_pushed(sp_sweep_t *w, int pair, int node) {
  sp_repeat_t *rep = w->rep;
  int top = w->depth - 1;
  if (rep->rec_depth < 0) { /* not recording: this call's subtree is the next pattern */
    rep->rec_depth = top;
    rep->nrec = 0;
  } else if (rep->nrec == SP_MAX_SLOTS) { /* too large: give it up */
    rep->rec_depth = -1;
    return;
  }
  sp_open_t *up = top > rep->rec_depth ? &w->stack[top - 1] : NULL;
  int s = rep->nrec++;
  rep->rec[s] = (sp_slot_t){pair, 0, up ? up->slot : -1, up ? up->last_child : -1, node};
  if (up) up->last_child = s;
  w->stack[top].slot = s;
}

/* The recorded pattern, kept under its root's node (replacing an older one). */
static sp_pattern_t *sp_pattern_make(sp_repeat_t *rep) {
  sp_pattern_t *pt = calloc(1, sizeof *pt);
  if (!pt) return NULL;
  pt->nslots = rep->nrec;
  pt->slots = malloc((size_t)pt->nslots * sizeof *pt->slots);
  pt->pair = malloc((size_t)pt->nslots * sizeof *pt->pair);
  pt->per = malloc((size_t)pt->nslots * sizeof *pt->per);
  if (!pt->slots || !pt->pair || !pt->per) {
    sp_pattern_free(pt);
    return NULL;
  }
  memcpy(pt->slots, rep->rec, (size_t)pt->nslots * sizeof *pt->slots);
  /* rep->per counts each pair's calls so far (left zeroed for the next use). */
  for (int s = 0; s < pt->nslots; s++) {
    sp_slot_t *sl = &pt->slots[s];
    sl->occ = rep->per[sl->pair]++;
    if (sl->occ == 0) pt->pair[pt->npairs++] = sl->pair;
  }
  for (int i = 0; i < pt->npairs; i++) {
    pt->per[i] = rep->per[pt->pair[i]];
    rep->per[pt->pair[i]] = 0;
  }
  return pt;
}

/* 1 if the recorded calls have the pattern's shape (occurrences follow). */
static int sp_same(const sp_pattern_t *pt, const sp_slot_t *rec) {
  for (int s = 0; s < pt->nslots; s++) {
    const sp_slot_t *a = &pt->slots[s], *b = &rec[s];
    if (a->pair != b->pair || a->parent != b->parent || a->sib != b->sib || a->node != b->node)
      return 0;
  }
  return 1;
}

void sp__repeat_popping(sp_sweep_t *w) {
  sp_repeat_t *rep = w->rep;
  rep->rec_depth = -1;
  int node = rep->rec[0].node;
  if (node >= rep->nof) {
    int n = rep->nof ? rep->nof : 64;
    while (n <= node) n *= 2;
    sp_pattern_t **v = realloc(rep->of_node, (size_t)n * sizeof *v);
    if (v) rep->of_node = v;
    unsigned char *st = v ? realloc(rep->state, (size_t)n) : NULL;
    if (!st) return; /* no pattern: the sweep goes on call by call */
    rep->state = st;
    memset(v + rep->nof, 0, (size_t)(n - rep->nof) * sizeof *v);
    memset(st + rep->nof, SP_NODE_NONE, (size_t)(n - rep->nof));
    rep->nof = n;
  }
  sp_pattern_t *old = rep->of_node[node];
  if (old && old->nslots == rep->nrec && sp_same(old, rep->rec)) return;
  sp_pattern_t *pt = sp_pattern_make(rep);
  if (!pt) return;
  pt->fails = old ? old->fails : 0;
  sp_pattern_free(old);
  rep->of_node[node] = pt;
  rep->state[node] = SP_NODE_LIVE;
}

/* ---- taking runs ---------------------------------------------------------- */

/* The index of slot s's call in repeat k. */
static inline int64_t sp_at(const sp_repeat_t *rep, const sp_slot_t *sl, int64_t k) {
  return rep->pos[sl->pair] + k * rep->per[sl->pair] + sl->occ;
}

/* Where slot sl's calls of repeats k0, k0 + 1, ... are: base[k * step]. */
static inline const int64_t *sp_col(const sp_repeat_t *rep, const sp_slot_t *sl, int64_t k0,
                                    const int64_t *col) {
  return col + sp_at(rep, sl, k0);
}

static const int64_t sp_no_sibling = INT64_MIN; /* a sibling that ended before anything */

/* 1 if repeats [k0, k1) of slot s > 0 lie inside their parent and after
 * their previous sibling: branch-free, a run rarely breaks. */
SP_STAMP_LOOP static int sp_slot_ok(const sp_repeat_t *rep, const sp_pattern_t *pt, int s,
                                    int64_t k0, int64_t k1, uint64_t *sum) {
  const sp_reader_intervals_t *iv = rep->ps->iv;
  const sp_slot_t *sl = &pt->slots[s], *pa = &pt->slots[sl->parent];
  const sp_slot_t *sb = sl->sib >= 0 ? &pt->slots[sl->sib] : NULL;
  const int64_t *st = sp_col(rep, sl, k0, iv[sl->pair].start);
  const int64_t *en = sp_col(rep, sl, k0, iv[sl->pair].end);
  const int64_t *pst = sp_col(rep, pa, k0, iv[pa->pair].start);
  const int64_t *pen = sp_col(rep, pa, k0, iv[pa->pair].end);
  const int64_t *be = sb ? sp_col(rep, sb, k0, iv[sb->pair].end) : &sp_no_sibling;
  int64_t ds = rep->per[sl->pair], dp = rep->per[pa->pair], db = sb ? rep->per[sb->pair] : 0;
  int ok = 1;
  uint64_t d = 0; /* the durations, summed while the data is at hand */
  int64_t n = k1 - k0;
  if (ds == 1 && dp == 1 && sb && db == 1) { /* the common case, vectorised */
    for (int64_t k = 0; k < n; k++) {
      ok &= (st[k] > pst[k]) & (en[k] < pen[k]) & (st[k] > be[k]);
      d += (uint64_t)en[k] - (uint64_t)st[k];
    }
  } else if (ds == 1 && dp == 1 && !sb) {
    for (int64_t k = 0; k < n; k++) {
      ok &= (st[k] > pst[k]) & (en[k] < pen[k]);
      d += (uint64_t)en[k] - (uint64_t)st[k];
    }
  } else {
    for (int64_t k = 0; k < n; k++) {
      ok &= (st[k * ds] > pst[k * dp]) & (en[k * ds] < pen[k * dp]) & (st[k * ds] > be[k * db]);
      d += (uint64_t)en[k * ds] - (uint64_t)st[k * ds];
    }
  }
  *sum = d;
  return ok;
}

/* 1 if the roots of repeats [k0, k1) are short enough, end before `before`
 * and start after the previous repeat's root. */
SP_STAMP_LOOP static int sp_root_ok(const sp_repeat_t *rep, const sp_pattern_t *pt, int64_t k0,
                                    int64_t k1, int64_t before, uint64_t *sum) {
  const sp_reader_intervals_t *iv = &rep->ps->iv[pt->slots[0].pair];
  int64_t d = rep->per[pt->slots[0].pair];
  const int64_t *st = sp_col(rep, &pt->slots[0], k0, iv->start);
  const int64_t *en = sp_col(rep, &pt->slots[0], k0, iv->end);
  int ok = 1;
  uint64_t total = 0;
  for (int64_t k = 0; k < k1 - k0; k++) {
    uint64_t dur = (uint64_t)en[k * d] - (uint64_t)st[k * d];
    ok &= (dur < ((uint64_t)1 << SP_ROOT_BITS)) & (en[k * d] < before) &
          (k + k0 == 0 || st[k * d] > en[(k - 1) * d]);
    total += dur;
  }
  *sum = total;
  return ok;
}

/* Adds the durations of repeats [k0, k1) to rep->sum. */
SP_STAMP_LOOP static void sp_add_sums(sp_repeat_t *rep, const sp_pattern_t *pt, int64_t k0,
                                      int64_t k1) {
  const sp_reader_intervals_t *iv = rep->ps->iv;
  for (int s = 0; s < pt->nslots; s++) {
    const sp_slot_t *sl = &pt->slots[s];
    const int64_t *st = sp_col(rep, sl, k0, iv[sl->pair].start);
    const int64_t *en = sp_col(rep, sl, k0, iv[sl->pair].end);
    int64_t d = rep->per[sl->pair];
    uint64_t sum = 0;
    if (d == 1) /* vectorised */
      for (int64_t k = 0; k < k1 - k0; k++) sum += (uint64_t)en[k] - (uint64_t)st[k];
    else
      for (int64_t k = 0; k < k1 - k0; k++) sum += (uint64_t)en[k * d] - (uint64_t)st[k * d];
    rep->sum[s] += sum;
  }
}

/* The first repeat in [k0, k1) whose calls do not have the pattern's
 * nesting or whose root does not end before `before` (k1 if none); with
 * add, the durations of the repeats before it are added to rep->sum. */
static int64_t sp_first_bad(sp_repeat_t *rep, const sp_pattern_t *pt, int64_t k0, int64_t k1,
                            int64_t before, int add) {
  uint64_t *part = rep->kids; /* scratch: the chunk's sums per slot */
  int ok = sp_root_ok(rep, pt, k0, k1, before, &part[0]);
  for (int s = 1; ok && s < pt->nslots; s++) ok = sp_slot_ok(rep, pt, s, k0, k1, &part[s]);
  if (ok) {
    for (int s = 0; add && s < pt->nslots; s++) rep->sum[s] += part[s];
    return k1;
  }
  for (int64_t k = k0; k < k1; k++) { /* which repeat broke */
    uint64_t unused;
    int good = sp_root_ok(rep, pt, k, k + 1, before, &unused);
    for (int s = 1; good && s < pt->nslots; s++) good = sp_slot_ok(rep, pt, s, k, k + 1, &unused);
    if (!good) {
      if (add) sp_add_sums(rep, pt, k0, k);
      return k;
    }
  }
  return k1;
}

/* 1 if no call of the pattern's pairs other than those of repeats
 * [0, k) starts before repeat k - 1 ends (the other pairs bound the run
 * through sp_first_bad's `before`). */
static int sp_complete(const sp_repeat_t *rep, const sp_pattern_t *pt, int64_t k) {
  const sp_reader_intervals_t *iv = rep->ps->iv;
  const sp_slot_t *root = &pt->slots[0];
  int64_t last_end = iv[root->pair].end[sp_at(rep, root, k - 1)];
  for (int q = 0; q < pt->npairs; q++) {
    int p = pt->pair[q];
    int64_t i = rep->pos[p] + k * pt->per[q];
    if (i < iv[p].n && iv[p].start[i] <= last_end) return 0;
  }
  return 1;
}

/* The end every repeat's root must come before: the open call's end, and
 * the next start of every pair without calls in the pattern. */
static int64_t sp_bound(const sp_sweep_t *w) {
  const sp_repeat_t *rep = w->rep;
  int64_t before = w->depth ? w->stack[w->depth - 1].end : INT64_MAX;
  for (int p = 0; p < rep->ps->n; p++) {
    const sp_reader_intervals_t *iv = &rep->ps->iv[p];
    if (rep->per[p] == 0 && rep->pos[p] < iv->n && iv->start[rep->pos[p]] < before)
      before = iv->start[rep->pos[p]];
  }
  return before;
}

/* The longest run of repeats from pos on that has the pattern's nesting
 * and leaves no call out; its durations are in rep->sum. Runs of one (the
 * call itself) are not worth it: 0. */
static int64_t sp_run(sp_sweep_t *w, const sp_pattern_t *pt) {
  sp_repeat_t *rep = w->rep;
  const sp_reader_intervals_t *iv = rep->ps->iv;
  int64_t most = (int64_t)1 << SP_RUN_BITS;
  for (int i = 0; i < pt->npairs; i++) {
    int p = pt->pair[i];
    int64_t fit = (iv[p].n - rep->pos[p]) / pt->per[i];
    most = fit < most ? fit : most;
  }
  int64_t up_end = w->depth ? w->stack[w->depth - 1].end : INT64_MAX;
  /* A cheap look at the second repeat's nesting before the pass over every pair. */
  if (most < 2 || sp_first_bad(rep, pt, 1, 2, up_end, 0) < 2) return 0;
  int64_t before = sp_bound(w);
  memset(rep->sum, 0, (size_t)pt->nslots * sizeof *rep->sum);
  int64_t k = 0, chunk = SP_CHUNK;
  while (k < most) {
    int64_t k1 = k + chunk < most ? k + chunk : most;
    int64_t good = sp_first_bad(rep, pt, k, k1, before, 1); /* adds the sums */
    k = good;
    if (good < k1) break;
    chunk = chunk < SP_CHUNK_MAX ? 2 * chunk : chunk;
  }
  while (k > 0 && !sp_complete(rep, pt, k)) { /* the last repeat has calls besides the pattern's */
    k--;
    for (int s = 0; s < pt->nslots; s++) {
      int64_t i = sp_at(rep, &pt->slots[s], k);
      const sp_reader_intervals_t *v = &iv[pt->slots[s].pair];
      rep->sum[s] -= (uint64_t)v->end[i] - (uint64_t)v->start[i];
    }
  }
  return k >= 2 ? k : 0;
}

/* Adds a run of k repeats to the nodes' cells and the open parent. */
static void sp_apply(sp_sweep_t *w, const sp_pattern_t *pt, int64_t k) {
  sp_repeat_t *rep = w->rep;
  memset(rep->kids, 0, (size_t)pt->nslots * sizeof *rep->kids);
  for (int s = 1; s < pt->nslots; s++) rep->kids[pt->slots[s].parent] += rep->sum[s];
  int worker = w->tid != 0;
  for (int s = 0; s < pt->nslots; s++) {
    sp_reader_tree_node_t *nd = &w->t->nodes[pt->slots[s].node];
    nd->timed = 1;
    nd->worker_calls += worker ? k : 0;
    int64_t *cell = sp_rank_cell(w->t, pt->slots[s].node, w->j);
    cell[0] = sp_add(cell[0], k);
    cell[1] = sp_add(cell[1], (int64_t)rep->sum[s]);
    cell[2] = sp_add(cell[2], (int64_t)(rep->sum[s] - rep->kids[s]));
  }
  if (w->depth) {
    sp_open_t *up = &w->stack[w->depth - 1];
    up->child_incl = sp_add(up->child_incl, (int64_t)rep->sum[0]);
  }
  for (int i = 0; i < pt->npairs; i++) rep->pos[pt->pair[i]] += k * pt->per[i];
}

int64_t sp__repeat_take(sp_sweep_t *w, int pair, int node, const sp_call_t *c) {
  sp_repeat_t *rep = w->rep;
  sp_pattern_t *pt = rep->of_node[node];
  const sp_reader_intervals_t *iv = &rep->ps->iv[pair];
  /* c must be the pair's next call (equal starts may be swept out of index order). */
  int64_t i = rep->pos[pair];
  if (pt->slots[0].pair != pair || i >= iv->n || iv->start[i] != c->start || iv->end[i] != c->end)
    return 0;
  for (int p = 0; p < pt->npairs; p++) rep->per[pt->pair[p]] = pt->per[p];
  int64_t k = sp_run(w, pt);
  if (k > 0) sp_apply(w, pt, k);
  pt->fails = k > 0 ? 0 : pt->fails + 1;
  if (pt->fails > SP_MAX_FAILS) rep->state[node] = SP_NODE_DEAD;
  for (int p = 0; p < pt->npairs; p++) rep->per[pt->pair[p]] = 0;
  return k;
}
