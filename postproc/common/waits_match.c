/* waits_match.c - pairs sends with receives by MPI's rule: on one
 * communicator, the messages from one source to one destination with one
 * tag are received in the order they were sent (non-overtaking), so the
 * i-th send of such a channel meets its i-th receive; a receive's source
 * and tag are the matched ones as recorded (wildcards resolved).
 *
 * Without a record of which message a nonblocking receive got (only its
 * wait knows, and the wait stores no tag), a rank's receives on a
 * communicator where it posted an MPI_Irecv are not paired: any channel
 * there may have lost a message to it. Likewise a call whose tag,
 * partner or communicator is not known (a Sendrecv with two partners,
 * the Fortran wrappers of today) leaves its side of the communicator
 * unpaired. A channel whose send and receive counts differ (a partner not
 * recorded) is not paired at all: nothing is guessed. */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

typedef struct sp_end {
  int32_t comm, src, dst, tag; /* src and dst as world ranks */
  int32_t k;                   /* rank index of the call */
  int32_t call;                /* its index in calls[] */
  int32_t region;              /* its region: calls come region by region */
} sp_end_t;

/* Taint bits of a (rank, communicator) side: why it cannot be paired. */
enum { SP_T_NONBLOCKING = 1, SP_T_UNKNOWN = 2 };

typedef struct sp_p2p {
  sp_end_t *sends, *recvs;
  int64_t nsends, nrecvs;
  uint8_t *tsend, *trecv; /* nranks x (ncomms + 1): the last column taints every comm */
} sp_p2p_t;

static uint8_t *sp_taint_at(const sp_waits_t *w, uint8_t *t, int k, int32_t comm) {
  return &t[(int64_t)k * (w->ncomms + 1) + (comm >= 0 ? comm : w->ncomms)];
}

static uint8_t sp_taint(const sp_waits_t *w, const uint8_t *t, int k, int32_t comm) {
  const uint8_t *row = &t[(int64_t)k * (w->ncomms + 1)];
  return (uint8_t)(row[w->ncomms] | row[comm]);
}

/* The world rank of rank `peer` of global communicator comm, or -1. */
static int32_t sp_world(const sp_waits_t *w, int32_t comm, int32_t peer) {
  if (comm < 0 || peer < 0 || peer >= w->comms[comm].size) return -1;
  return w->comms[comm].members[peer];
}

/* One call's ends, or its taint. */
static void sp_p2p_call(sp_waits_t *w, sp_p2p_t *p, int k, int32_t i) {
  const sp_wcall_t *c = &w->ranks[k].calls[i];
  int me = w->ranks[k].id, op = c->op;
  int sends = op == SP_OP_SEND || op == SP_OP_SSEND || op == SP_OP_ISEND || op == SP_OP_SENDRECV;
  int recvs = op == SP_OP_RECV || op == SP_OP_SENDRECV || op == SP_OP_IRECV;
  if (!sends && !recvs) return;
  if (op == SP_OP_IRECV) {
    *sp_taint_at(w, p->trecv, k, c->comm) |= SP_T_NONBLOCKING;
    w->nonblocking++;
    w->unpaired[SP_UNP_NONBLOCKING]++;
    return;
  }
  int32_t other = sp_world(w, c->comm, c->peer);
  if (c->peer == -1 && op != SP_OP_SENDRECV && c->comm >= 0) return; /* MPI_PROC_NULL */
  if (c->comm < 0 || c->tag < 0 || other < 0) {
    if (sends) *sp_taint_at(w, p->tsend, k, c->comm) |= SP_T_UNKNOWN;
    if (recvs) *sp_taint_at(w, p->trecv, k, c->comm) |= SP_T_UNKNOWN;
    w->unpaired[SP_UNP_UNKNOWN]++;
    return;
  }
  if (sends) p->sends[p->nsends++] = (sp_end_t){c->comm, me, other, c->tag, k, i, c->region};
  if (recvs) p->recvs[p->nrecvs++] = (sp_end_t){c->comm, other, me, c->tag, k, i, c->region};
}

/* Pairs one channel: sends S[si[0..ns)], receives V[vi[0..nv)] of one key. */
static int sp_p2p_channel(sp_waits_t *w, sp_p2p_t *p, const sp_end_t *S, const int32_t *si,
                          int64_t ns, const sp_end_t *V, const int32_t *vi, int64_t nv) {
  const sp_end_t *key = ns ? &S[si[0]] : &V[vi[0]];
  int ks = sp_reader_rank_index(w->reader, key->src);
  int kr = sp_reader_rank_index(w->reader, key->dst);
  if (ks < 0 || kr < 0) {
    w->unpaired[SP_UNP_NOT_PROFILED] += ns + nv;
    return 0;
  }
  uint8_t t =
      (uint8_t)(sp_taint(w, p->tsend, ks, key->comm) | sp_taint(w, p->trecv, kr, key->comm));
  if (t || ns != nv) {
    w->unpaired[t & SP_T_NONBLOCKING ? SP_UNP_NONBLOCKING
                : t                  ? SP_UNP_UNKNOWN
                                     : SP_UNP_NO_PARTNER] += ns + nv;
    return 0;
  }
  for (int64_t i = 0; i < ns; i++) {
    sp_wcall_t *snd = &w->ranks[ks].calls[S[si[i]].call];
    sp_wcall_t *rcv = &w->ranks[kr].calls[V[vi[i]].call];
    w->pairs++;
    /* Late Sender: the receive waited from its start until the send started. */
    if (rcv->op != SP_OP_IRECV && snd->start > rcv->start) {
      int64_t d = rcv->end - rcv->start, late = snd->start - rcv->start;
      if (sp__waits_mark(w, kr, rcv, SP_WAIT_LATE_SENDER, late < d ? late : d, ks, rcv->start))
        return SP_READER_ENOMEM;
    }
    /* Late Receiver: a blocking send still running when the receive was
     * posted waited for it (an eager send that returned before did not). */
    if ((snd->op == SP_OP_SEND || snd->op == SP_OP_SSEND) && rcv->start > snd->start &&
        snd->end >= rcv->start) {
      int64_t d = snd->end - snd->start, late = rcv->start - snd->start;
      if (sp__waits_mark(w, ks, snd, SP_WAIT_LATE_RECEIVER, late < d ? late : d, kr, snd->start))
        return SP_READER_ENOMEM;
    }
  }
  return 0;
}

/* Channels: (comm, src, dst, tag) keys numbered through an open-addressed
 * table, so that the ends are grouped by a counting sort (stable: a
 * channel's ends are all of one rank, region by region in start order). */
typedef struct sp_chan_map {
  int32_t *slot; /* channel + 1, 0 empty */
  sp_end_t *keys;
  int64_t cap, n, kcap;
} sp_chan_map_t;

static uint64_t sp_chan_hash(const sp_end_t *e) {
  uint64_t h = (uint64_t)(uint32_t)e->comm * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t)(uint32_t)e->src * 0xc2b2ae3d27d4eb4fULL;
  h ^= (uint64_t)(uint32_t)e->dst * 0x165667b19e3779f9ULL;
  h ^= (uint64_t)(uint32_t)e->tag * 0x27d4eb2f165667c5ULL;
  return h ^ (h >> 29);
}

static int sp_same_chan(const sp_end_t *a, const sp_end_t *b) {
  return a->comm == b->comm && a->src == b->src && a->dst == b->dst && a->tag == b->tag;
}

/* The channel of e (a new one when unseen; the table has room for every
 * end), -1 when out of memory. */
static int32_t sp_chan_of(sp_chan_map_t *m, const sp_end_t *e) {
  uint64_t mask = (uint64_t)m->cap - 1, h = sp_chan_hash(e) & mask;
  while (m->slot[h]) {
    if (sp_same_chan(&m->keys[m->slot[h] - 1], e)) return m->slot[h] - 1;
    h = (h + 1) & mask;
  }
  if (m->n == m->kcap) {
    int64_t kc = m->kcap ? m->kcap * 2 : 256;
    sp_end_t *k = realloc(m->keys, (size_t)kc * sizeof *k);
    if (!k) return -1;
    m->keys = k;
    m->kcap = kc;
  }
  m->keys[m->n] = *e;
  m->slot[h] = (int32_t)++m->n;
  return (int32_t)(m->n - 1);
}

/* Groups the ends 0..n by channel (stable): out[first[c] .. first[c + 1])
 * are channel c's indices. */
static void sp_by_chan(const int32_t *chan, int64_t n, int64_t nch, int64_t *first, int32_t *out) {
  memset(first, 0, (size_t)(nch + 1) * sizeof *first);
  for (int64_t i = 0; i < n; i++) first[chan[i] + 1]++;
  for (int64_t c = 0; c < nch; c++) first[c + 1] += first[c];
  for (int64_t i = 0; i < n; i++) out[first[chan[i]]++] = (int32_t)i;
  for (int64_t c = nch; c > 0; c--) first[c] = first[c - 1];
  first[0] = 0;
}

typedef struct sp_at {
  int64_t start, end;
  int64_t i;
} sp_at_t;

static int sp_at_cmp(const void *a, const void *b) {
  const sp_at_t *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* Puts a channel's ends E[ix[0..n)] (all of one rank) in start order: they
 * come region by region, so only a channel fed by several regions
 * (MPI_Send and MPI_Isend) needs it. Returns 0 or SP_READER_ENOMEM. */
static int sp_chan_order(const sp_waits_t *w, const sp_end_t *E, int32_t *ix, int64_t n) {
  int64_t i = 1;
  while (i < n && E[ix[i]].region == E[ix[0]].region) i++;
  if (i >= n) return 0; /* one region's: in order already */
  const sp_wcall_t *calls = w->ranks[E[ix[0]].k].calls;
  sp_at_t *at = malloc((size_t)n * sizeof *at);
  if (!at) return SP_READER_ENOMEM;
  for (int64_t j = 0; j < n; j++)
    at[j] = (sp_at_t){calls[E[ix[j]].call].start, calls[E[ix[j]].call].end, ix[j]};
  qsort(at, (size_t)n, sizeof *at, sp_at_cmp);
  for (int64_t j = 0; j < n; j++) ix[j] = (int32_t)at[j].i;
  free(at);
  return 0;
}

static int sp_p2p_pair_all(sp_waits_t *w, sp_p2p_t *p) {
  int64_t n = p->nsends + p->nrecvs, cap = 16;
  while (cap < 2 * n + 2) cap *= 2;
  sp_chan_map_t m = {calloc((size_t)cap, sizeof(int32_t)), NULL, cap, 0, 0};
  int32_t *chan = calloc((size_t)(n + 1), sizeof *chan);
  int32_t *ix = malloc((size_t)(n + 1) * sizeof *ix);
  int64_t *sf = NULL, *rf = NULL;
  int rc = m.slot && chan && ix ? 0 : SP_READER_ENOMEM;
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    chan[i] = sp_chan_of(&m, i < p->nsends ? &p->sends[i] : &p->recvs[i - p->nsends]);
    if (chan[i] < 0) rc = SP_READER_ENOMEM;
  }
  if (rc == 0) {
    sf = malloc((size_t)(m.n + 2) * sizeof *sf);
    rf = malloc((size_t)(m.n + 2) * sizeof *rf);
    if (!sf || !rf) rc = SP_READER_ENOMEM;
  }
  if (rc == 0) {
    sp_by_chan(chan, p->nsends, m.n, sf, ix);
    sp_by_chan(chan + p->nsends, p->nrecvs, m.n, rf, ix + p->nsends);
    int32_t *si = ix, *vi = ix + p->nsends;
    for (int64_t c = 0; rc == 0 && c < m.n; c++) {
      int64_t ns = sf[c + 1] - sf[c], nv = rf[c + 1] - rf[c];
      rc = sp_chan_order(w, p->sends, si + sf[c], ns);
      if (rc == 0) rc = sp_chan_order(w, p->recvs, vi + rf[c], nv);
      if (rc == 0) rc = sp_p2p_channel(w, p, p->sends, si + sf[c], ns, p->recvs, vi + rf[c], nv);
    }
  }
  free(m.slot);
  free(m.keys);
  free(chan);
  free(ix);
  free(sf);
  free(rf);
  return rc;
}

int sp__waits_match_p2p(sp_waits_t *w) {
  sp_p2p_t p;
  memset(&p, 0, sizeof p);
  int64_t ns = w->nsends, nr = w->nrecvs; /* counted at load */
  size_t tn = (size_t)w->nranks * (size_t)(w->ncomms + 1);
  p.sends = malloc((size_t)(ns + 1) * sizeof *p.sends);
  p.recvs = malloc((size_t)(nr + 1) * sizeof *p.recvs);
  p.tsend = calloc(tn, 1);
  p.trecv = calloc(tn, 1);
  int rc = p.sends && p.recvs && p.tsend && p.trecv ? 0 : SP_READER_ENOMEM;
  for (int k = 0; rc == 0 && k < w->nranks; k++)
    for (int64_t i = 0; i < w->ranks[k].ncalls; i++) sp_p2p_call(w, &p, k, (int32_t)i);
  if (rc == 0) rc = sp_p2p_pair_all(w, &p);
  free(p.sends);
  free(p.recvs);
  free(p.tsend);
  free(p.trecv);
  return rc;
}
