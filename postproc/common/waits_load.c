/* waits_load.c - reads what the wait states need: every rank's calls
 * (regions and MPI calls; the MPI calls' peer, tag and communicator) and
 * the communicator tables, which it unifies across ranks by their member
 * lists (ids may differ per rank: docs/automatic-regions.md "Tags and
 * communicators"). Then pairs and classifies (waits_match.c, waits_coll.c). */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

const char *const sp_wait_keys[SP_WAIT_NSTATES] = {
    "late_sender", "late_receiver", "wait_nxn", "wait_barrier", "late_broadcast", "early_reduce"};
const char *const sp_wait_titles[SP_WAIT_NSTATES] = {"Late Sender",    "Late Receiver",
                                                     "Wait at N x N",  "Wait at Barrier",
                                                     "Late Broadcast", "Early Reduce"};
const char *const sp_unpaired_text[SP_UNP_NREASONS] = {
    "the partner's call is not in the file",
    "the partner rank is not in the file",
    "nonblocking receives in a file without their completions (rank<N>/mpi/completions)",
    "tag, partner or communicator not recorded",
    "nonblocking receives completed without a message (cancelled, or from MPI_PROC_NULL)",
    "nonblocking receives no recorded wait or test completed"};

static int sp_in(const char *name, const char *const *list) {
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

sp_wop_t sp_wop_of(const char *name) {
  static const char *const send[] = {"MPI_Send", "MPI_Bsend", "MPI_Rsend", NULL};
  static const char *const isend[] = {"MPI_Isend", "MPI_Ibsend", "MPI_Irsend", "MPI_Issend", NULL};
  static const char *const nxn[] = {"MPI_Allreduce",
                                    "MPI_Allgather",
                                    "MPI_Allgatherv",
                                    "MPI_Alltoall",
                                    "MPI_Alltoallv",
                                    "MPI_Alltoallw",
                                    "MPI_Reduce_scatter",
                                    "MPI_Reduce_scatter_block",
                                    NULL};
  static const char *const one_n[] = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv", NULL};
  static const char *const n_one[] = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv", NULL};
  static const char *const coll[] = {"MPI_Scan",
                                     "MPI_Exscan",
                                     "MPI_Ibarrier",
                                     "MPI_Ibcast",
                                     "MPI_Ireduce",
                                     "MPI_Iallreduce",
                                     "MPI_Igather",
                                     "MPI_Igatherv",
                                     "MPI_Iscatter",
                                     "MPI_Iscatterv",
                                     "MPI_Iallgather",
                                     "MPI_Iallgatherv",
                                     "MPI_Ialltoall",
                                     "MPI_Ialltoallv",
                                     "MPI_Ialltoallw",
                                     "MPI_Ireduce_scatter",
                                     "MPI_Ireduce_scatter_block",
                                     "MPI_Iscan",
                                     "MPI_Iexscan",
                                     NULL};
  if (strncmp(name, "MPI_", 4) != 0) return SP_OP_OTHER;
  if (sp_in(name, send)) return SP_OP_SEND;
  if (strcmp(name, "MPI_Ssend") == 0) return SP_OP_SSEND;
  if (sp_in(name, isend)) return SP_OP_ISEND;
  if (strcmp(name, "MPI_Recv") == 0) return SP_OP_RECV;
  if (strcmp(name, "MPI_Irecv") == 0) return SP_OP_IRECV;
  if (strcmp(name, "MPI_Sendrecv") == 0 || strcmp(name, "MPI_Sendrecv_replace") == 0)
    return SP_OP_SENDRECV;
  if (strcmp(name, "MPI_Barrier") == 0) return SP_OP_BARRIER;
  if (sp_in(name, nxn)) return SP_OP_NXN;
  if (sp_in(name, one_n)) return SP_OP_1N;
  if (sp_in(name, n_one)) return SP_OP_N1;
  if (sp_in(name, coll)) return SP_OP_COLL;
  return SP_OP_OTHER;
}

/* Room for need elements in *p: exactly need on first use (the caller's
 * count), doubling after. */
static int sp_grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap : need;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q) return SP_READER_ENOMEM;
  *p = q;
  *cap = c;
  return 0;
}

/* SP_RUN_* of a region's intervals, from the arrays as read (in the cache
 * still: a pass over the calls later read every one of them again). */
static uint8_t sp_run_flags(const sp_reader_intervals_t *iv) {
  uint8_t f = 0;
  const int64_t *s = iv->start, *e = iv->end;
  for (int64_t i = 1; i < iv->n && !(f & SP_RUN_UNSORTED); i++) /* sp_call_cmp's order */
    if (s[i] < s[i - 1] || (s[i] == s[i - 1] && e[i] > e[i - 1])) f |= SP_RUN_UNSORTED;
  for (int64_t i = 0; iv->thread_ids && i < iv->n && !(f & SP_RUN_MIXED); i++)
    if (iv->thread_ids[i] != 0) f |= SP_RUN_MIXED;
  return f;
}

/* Appends region g's calls on rank k: an MPI call region's to calls[]
 * (one run, in the pair's order), any other region's thread-0 calls to
 * items[]. */
static int sp_waits_add_region(sp_waits_t *w, int k, int g, int64_t *icap, int64_t *ccap) {
  sp_reader_t *r = w->reader;
  sp_wrank_t *rk = &w->ranks[k];
  const char *name = sp_reader_region_name(r, g);
  int is_mpi = name && strncmp(name, "MPI_", 4) == 0;
  sp_reader_intervals_t iv;
  int rc = sp_reader_load(r, g, k, &iv);
  if (rc) return rc;
  sp_reader_mpi_t m;
  memset(&m, 0, sizeof m);
  sp_wop_t op = is_mpi ? sp_wop_of(name) : SP_OP_OTHER;
  /* waits, tests and the like are paired through what they completed: their own ids are not read */
  if (is_mpi && op != SP_OP_OTHER) rc = sp_reader_mpi_load_ids(r, g, k, &m);
  if (rc == 0 && !is_mpi)
    rc = sp_grow((void **)&rk->items, icap, rk->nitems + iv.n, sizeof *rk->items);
  if (rc == 0 && is_mpi)
    rc = sp_grow((void **)&rk->calls, ccap, rk->ncalls + iv.n, sizeof *rk->calls);
  if (rc == 0 && is_mpi && iv.n > 0)
    rc = sp_grow((void **)&rk->runs, &rk->runs_cap, rk->nruns + 2, sizeof *rk->runs);
  if (rc == 0 && is_mpi && iv.n > 0)
    rc = sp_grow((void **)&rk->run_flags, &rk->flags_cap, rk->nruns + 1, sizeof *rk->run_flags);
  if (rc == 0 && is_mpi && iv.n > 0) {
    rk->run_flags[rk->nruns] = sp_run_flags(&iv);
    rk->runs[rk->nruns++] = rk->ncalls;
  }
  if (m.tag) w->has_tags = 1;

  for (int64_t i = 0; rc == 0 && is_mpi && i < iv.n; i++) {
    sp_wcall_t *c = &rk->calls[rk->ncalls++];
    c->start = iv.start[i];
    c->end = iv.end[i];
    c->wait = 0;
    c->region = g;
    c->path = -1;
    c->peer = m.peer ? m.peer[i] : -1;
    c->tag = m.tag ? m.tag[i] : -1;
    int32_t lc = m.comm ? m.comm[i] : -1; /* the rank's id: its global index */
    c->comm = lc >= 0 && lc < rk->nlocal ? rk->gcomm[lc] : -1;
    c->op = (int8_t)op;
    c->state = -1;
    c->worker = iv.thread_ids && iv.thread_ids[i] != 0;
    c->done = 0;
  }
  if (is_mpi) {
    w->mpi_calls += iv.n;
    w->nsends += op == SP_OP_SEND || op == SP_OP_SSEND || op == SP_OP_ISEND || op == SP_OP_SENDRECV
                     ? iv.n
                     : 0;
    w->nrecvs += op == SP_OP_RECV || op == SP_OP_SENDRECV ? iv.n : 0;
    w->ncolls += op >= SP_OP_BARRIER ? iv.n : 0;
  }
  for (int64_t i = 0; rc == 0 && !is_mpi && i < iv.n; i++) {
    if (iv.thread_ids && iv.thread_ids[i] != 0) continue;
    sp_witem_t *it = &rk->items[rk->nitems++];
    it->start = iv.start[i];
    it->end = iv.end[i];
    it->region = g;
    it->parent = it->path = -1;
  }
  sp_reader_mpi_free(&m);
  sp_reader_intervals_free(&iv);
  return rc;
}

static int sp_same(const sp_wcomm_t *a, const int32_t *m, int size, int ordinal) {
  return a->size == size && a->ordinal == ordinal &&
         memcmp(a->members, m, (size_t)size * sizeof *m) == 0;
}

/* Gives rank k's communicator ids their global index: the same member list
 * and the same ordinal among this rank's ids with that list. Before its
 * calls are read, which take the global index as they are copied. */
static int sp_waits_comms(sp_waits_t *w, int k, int64_t *gcap) {
  sp_reader_mpi_comms_t t;
  int rc = sp_reader_mpi_comms(w->reader, k, &t);
  if (rc || !t.present) return rc;
  w->has_comms = 1;
  sp_wrank_t *rk = &w->ranks[k];
  rk->gcomm = malloc((size_t)(t.n > 0 ? t.n : 1) * sizeof *rk->gcomm);
  if (!rk->gcomm) rc = SP_READER_ENOMEM;
  rk->nlocal = rc ? 0 : t.n;
  for (int c = 0; rc == 0 && c < t.n; c++) {
    const int32_t *m = t.members + t.offsets[c];
    int size = t.sizes[c], ord = 0, found = -1;
    rk->gcomm[c] = -1;
    if (size == 0) continue; /* an id this rank is not a member of */
    for (int d = 0; d < c; d++)
      ord +=
          t.sizes[d] == size && memcmp(t.members + t.offsets[d], m, (size_t)size * sizeof *m) == 0;
    for (int gi = 0; gi < w->ncomms && found < 0; gi++)
      if (sp_same(&w->comms[gi], m, size, ord)) found = gi;
    if (found < 0) {
      int64_t need = w->ncomms + 1;
      rc = sp_grow((void **)&w->comms, gcap, need, sizeof *w->comms);
      int32_t *copy = rc ? NULL : malloc((size_t)size * sizeof *copy);
      if (!copy) {
        rc = SP_READER_ENOMEM;
        break;
      }
      memcpy(copy, m, (size_t)size * sizeof *copy);
      found = w->ncomms++;
      w->comms[found] = (sp_wcomm_t){copy, size, ord};
    }
    rk->gcomm[c] = found;
  }
  sp_reader_mpi_comms_free(&t);
  if (rc) rk->nlocal = 0;
  return rc;
}

static int sp_call_cmp(const void *a, const void *b) {
  const sp_wcall_t *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* Sorts each region's run of rank k's calls by start where it is not
 * already (calls of several threads; noted as they were read). The runs
 * stay apart: what needs the calls of several regions in order (a channel
 * of messages, a communicator's collectives) orders its own few
 * (waits_match.c, waits_coll.c), which costs nothing where one region
 * holds them. */
static void sp_calls_order(sp_wrank_t *rk) {
  if (rk->nruns == 0) return;
  rk->runs[rk->nruns] = rk->ncalls;
  for (int r = 0; r < rk->nruns; r++) {
    int64_t len = rk->runs[r + 1] - rk->runs[r];
    if ((rk->run_flags[r] & SP_RUN_UNSORTED) && len > 1)
      qsort(rk->calls + rk->runs[r], (size_t)len, sizeof *rk->calls, sp_call_cmp);
  }
}

/* Sizes rank k's items and calls for all its intervals at once (grown by
 * doubling, they were copied at each step: 3 % of --waits' page faults on
 * 4 ranks x 1e5 messages). */
static int sp_waits_size(sp_waits_t *w, int k, int64_t *icap, int64_t *ccap) {
  int64_t ni = 0, nc = 0;
  for (int g = 0; g < sp_reader_num_regions(w->reader); g++) {
    sp_reader_info_t info;
    if (sp_reader_info(w->reader, g, k, &info) != 0 || !info.present || !info.has_times) continue;
    const char *name = sp_reader_region_name(w->reader, g);
    *(name && strncmp(name, "MPI_", 4) == 0 ? &nc : &ni) += info.num_intervals;
  }
  sp_wrank_t *rk = &w->ranks[k];
  int rc = sp_grow((void **)&rk->items, icap, ni, sizeof *rk->items);
  return rc ? rc : sp_grow((void **)&rk->calls, ccap, nc, sizeof *rk->calls);
}

static int sp_waits_rank(sp_waits_t *w, int k, int64_t *gcap) {
  sp_wrank_t *rk = &w->ranks[k];
  rk->id = sp_reader_rank_id(w->reader, k);
  int64_t icap = 0, ccap = 0;
  int rc = sp_waits_comms(w, k, gcap);
  if (rc == 0) rc = sp_waits_size(w, k, &icap, &ccap);
  for (int g = 0; rc == 0 && g < sp_reader_num_regions(w->reader); g++) {
    sp_reader_info_t info;
    if (sp_reader_info(w->reader, g, k, &info) != 0 || !info.present || !info.has_times) continue;
    rc = sp_waits_add_region(w, k, g, &icap, &ccap);
  }
  if (rc == 0) sp_calls_order(rk);
  if (rc == 0) rc = sp__waits_done(w, k);
  if (rc == 0) rc = sp__waits_tree(w, k);
  return rc;
}

/* 1 when some rank has stamps of an MPI call region. Without one there
 * are no wait states, and no call is read: a file of 1e7 calls on one rank
 * without MPI records peaked at 148 MiB (27.9 MiB at 1e6) before it was
 * found to have none. */
static int sp_waits_any_mpi(sp_reader_t *r, int nranks) {
  for (int g = 0; g < sp_reader_num_regions(r); g++) {
    const char *name = sp_reader_region_name(r, g);
    if (!name || strncmp(name, "MPI_", 4) != 0) continue;
    for (int k = 0; k < nranks; k++) {
      sp_reader_info_t info;
      if (sp_reader_info(r, g, k, &info) == 0 && info.present && info.has_times &&
          info.num_intervals > 0)
        return 1;
    }
  }
  return 0;
}

int sp_waits_build(sp_reader_t *r, sp_waits_t *w) {
  memset(w, 0, sizeof *w);
  w->reader = r;
  w->nranks = sp_reader_num_ranks(r);
  w->ranks = calloc((size_t)w->nranks, sizeof *w->ranks);
  if (!w->ranks) return SP_READER_ENOMEM;
  for (int k = 0; k < w->nranks; k++) w->ranks[k].id = sp_reader_rank_id(r, k);
  if (!sp_waits_any_mpi(r, w->nranks)) return 0; /* mpi_calls 0: the callers say so */
  int64_t gcap = 0;
  int rc = 0;
  for (int k = 0; rc == 0 && k < w->nranks; k++) rc = sp_waits_rank(w, k, &gcap);
  if (rc == 0 && w->mpi_calls > 0) rc = sp__waits_match_p2p(w);
  if (rc == 0 && w->mpi_calls > 0) rc = sp__waits_match_coll(w);
  return rc;
}

void sp_waits_free(sp_waits_t *w) {
  if (!w) return;
  for (int k = 0; w->ranks && k < w->nranks; k++) {
    free(w->ranks[k].items);
    free(w->ranks[k].calls);
    free(w->ranks[k].runs);
    free(w->ranks[k].run_flags);
    free(w->ranks[k].gcomm);
    free(w->ranks[k].done);
  }
  for (int c = 0; c < w->ncomms; c++) free(w->comms[c].members);
  free(w->comms);
  free(w->ranks);
  free(w->paths);
  free(w->path_slot);
  memset(w, 0, sizeof *w);
}
