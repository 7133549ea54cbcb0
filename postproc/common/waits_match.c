/* waits_match.c - pairs sends with receives by MPI's rule: on one
 * communicator, the messages from one source to one destination with one
 * tag are received in the order they were sent (non-overtaking), so the
 * i-th send of such a channel meets its i-th receive; a receive's source
 * and tag are the matched ones as recorded (wildcards resolved).
 *
 * A nonblocking receive (MPI_Irecv, a persistent receive started by
 * MPI_Start/Startall) is one end at its posting call, its source and tag
 * those of the status its completion recorded (waits_done.c); its Late
 * Sender is charged to the call that completed it (MPI_Wait*, MPI_Test*):
 * from that call's start to the send's start, capped at that call's
 * duration; a call completing several receives waits for the latest
 * sender (the largest of their waits, not the sum: it waited once). A
 * started persistent send is a send at its MPI_Start. In a file without
 * the completion table (older files), a rank's receives on a communicator
 * where it posted an MPI_Irecv are not paired: any channel there may have
 * lost a message to it. A Sendrecv whose own partner and tag cannot say
 * both halves (two partners, two tags, MPI_PROC_NULL on one side) has its
 * halves as completions of itself: a send and a receive that it waited
 * for. A call whose tag,
 * partner or communicator is not known (a Sendrecv with two partners in
 * files of older versions, their Fortran wrappers) leaves its side of the
 * communicator unpaired. A channel whose send and receive counts differ (a partner not
 * recorded) is not paired at all: nothing is guessed. */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

/* A channel: messages of one communicator from one source to one
 * destination (world ranks) with one tag. */
typedef struct sp_chan {
  int32_t comm, src, dst, tag;
} sp_chan_t;

/* One end of a message: the call, and its region (calls come region by
 * region, each region's in start order). Its rank is its channel's source
 * (a send) or destination (a receive). */
typedef struct sp_end {
  int32_t call, region;
  int32_t wait; /* a nonblocking receive's completing call (-2: not in the file);
                 * -1: a blocking call, which waits itself */
} sp_end_t;

/* Channels numbered through an open-addressed table (slot: channel + 1, 0
 * empty; sized for every end, so never full). */
typedef struct sp_chan_map {
  int32_t *slot;
  sp_chan_t *keys;
  int64_t cap, n, kcap;
} sp_chan_map_t;

/* How many ends ahead the pairing loops fetch their calls into the cache. */
#define SP_AHEAD 8

/* Taint bits of a (rank, communicator) side: why it cannot be paired. */
enum { SP_T_NONBLOCKING = 1, SP_T_UNKNOWN = 2 };

typedef struct sp_p2p {
  sp_end_t *sends, *recvs;
  int32_t *schan, *rchan; /* each end's channel */
  int64_t nsends, nrecvs;
  sp_chan_map_t map;
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

static uint64_t sp_chan_hash(const sp_chan_t *e) {
  uint64_t h = (uint64_t)(uint32_t)e->comm * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t)(uint32_t)e->src * 0xc2b2ae3d27d4eb4fULL;
  h ^= (uint64_t)(uint32_t)e->dst * 0x165667b19e3779f9ULL;
  h ^= (uint64_t)(uint32_t)e->tag * 0x27d4eb2f165667c5ULL;
  return h ^ (h >> 29);
}

/* The channel of e (a new one when unseen), -1 when out of memory. */
static int32_t sp_chan_of(sp_chan_map_t *m, const sp_chan_t *e) {
  uint64_t mask = (uint64_t)m->cap - 1, h = sp_chan_hash(e) & mask;
  for (; m->slot[h]; h = (h + 1) & mask) {
    const sp_chan_t *o = &m->keys[m->slot[h] - 1];
    if (o->comm == e->comm && o->src == e->src && o->dst == e->dst && o->tag == e->tag)
      return m->slot[h] - 1;
  }
  if (m->n == m->kcap) {
    int64_t kc = m->kcap ? m->kcap * 2 : 256;
    sp_chan_t *k = realloc(m->keys, (size_t)kc * sizeof *k);
    if (!k) return -1;
    m->keys = k;
    m->kcap = kc;
  }
  m->keys[m->n] = *e;
  m->slot[h] = (int32_t)++m->n;
  return (int32_t)(m->n - 1);
}

/* One call's ends, or its taint. 0 or SP_READER_ENOMEM. */
static int sp_p2p_call(sp_waits_t *w, sp_p2p_t *p, int k, int32_t i) {
  const sp_wcall_t *c = &w->ranks[k].calls[i];
  int me = w->ranks[k].id, op = c->op;
  int sends = op == SP_OP_SEND || op == SP_OP_SSEND || op == SP_OP_ISEND || op == SP_OP_SENDRECV;
  int recvs = op == SP_OP_RECV || op == SP_OP_SENDRECV;
  if (op == SP_OP_SENDRECV && c->done) return 0; /* its halves through its completions */
  if (op == SP_OP_IRECV && w->has_done) { /* an end through its completion (sp_p2p_done) */
    if (!c->done) w->unpaired[SP_UNP_NOT_COMPLETED]++;
    return 0;
  }
  if (op == SP_OP_IRECV) {
    *sp_taint_at(w, p->trecv, k, c->comm) |= SP_T_NONBLOCKING;
    w->nonblocking++;
    w->unpaired[SP_UNP_NONBLOCKING]++;
    return 0;
  }
  int32_t other = sp_world(w, c->comm, c->peer);
  if (c->peer == -1 && op != SP_OP_SENDRECV && c->comm >= 0) return 0; /* MPI_PROC_NULL */
  if (c->comm < 0 || c->tag < 0 || other < 0) {
    if (sends) *sp_taint_at(w, p->tsend, k, c->comm) |= SP_T_UNKNOWN;
    if (recvs) *sp_taint_at(w, p->trecv, k, c->comm) |= SP_T_UNKNOWN;
    w->unpaired[SP_UNP_UNKNOWN]++;
    return 0;
  }
  if (sends) {
    sp_chan_t key = {c->comm, me, other, c->tag};
    p->schan[p->nsends] = sp_chan_of(&p->map, &key);
    p->sends[p->nsends++] = (sp_end_t){i, c->region, -1};
  }
  if (recvs) {
    sp_chan_t key = {c->comm, other, me, c->tag};
    p->rchan[p->nrecvs] = sp_chan_of(&p->map, &key);
    p->recvs[p->nrecvs++] = (sp_end_t){i, c->region, -1};
  }
  return (sends && p->schan[p->nsends - 1] < 0) || (recvs && p->rchan[p->nrecvs - 1] < 0)
             ? SP_READER_ENOMEM
             : 0;
}

/* Rank k's completions: a nonblocking receive's end at its posting call,
 * with the message its status names and the call that completed it; a
 * started persistent send's at its MPI_Start (an MPI_Isend is one
 * already); a Sendrecv's send and receive at the Sendrecv. 0 or SP_READER_ENOMEM. */
static int sp_p2p_done(sp_waits_t *w, sp_p2p_t *p, int k) {
  const sp_wrank_t *rk = &w->ranks[k];
  for (int64_t i = 0; i < rk->ndone; i++) {
    const sp_wdone_t *d = &rk->done[i];
    if (d->send && (d->post < 0 || rk->calls[d->post].op == SP_OP_ISEND)) continue;
    if (!d->send && d->post >= 0 && d->peer < 0 && d->comm >= 0) {
      w->unpaired[SP_UNP_NO_MESSAGE]++; /* no message was taken */
      continue;
    }
    if (d->post < 0 || d->comm < 0 || d->tag < 0 || d->peer < 0) {
      *sp_taint_at(w, d->send ? p->tsend : p->trecv, k, d->comm) |= SP_T_UNKNOWN;
      w->unpaired[SP_UNP_UNKNOWN]++;
      continue;
    }
    const sp_wcall_t *c = &rk->calls[d->post];
    if (d->send) {
      sp_chan_t key = {d->comm, rk->id, d->peer, d->tag};
      p->schan[p->nsends] = sp_chan_of(&p->map, &key);
      p->sends[p->nsends++] = (sp_end_t){d->post, c->region, -1};
      if (p->schan[p->nsends - 1] < 0) return SP_READER_ENOMEM;
    } else {
      sp_chan_t key = {d->comm, d->peer, rk->id, d->tag};
      p->rchan[p->nrecvs] = sp_chan_of(&p->map, &key);
      p->recvs[p->nrecvs++] = (sp_end_t){d->post, c->region, d->wait >= 0 ? d->wait : -2};
      if (p->rchan[p->nrecvs - 1] < 0) return SP_READER_ENOMEM;
    }
  }
  return 0;
}

/* Pairs channel key: sends S[si[0..ns)], receives V[vi[0..nv)]. */
static int sp_p2p_channel(sp_waits_t *w, sp_p2p_t *p, const sp_chan_t *key, const int32_t *si,
                          int64_t ns, const int32_t *vi, int64_t nv) {
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
  const sp_wcall_t *sc = w->ranks[ks].calls, *rc = w->ranks[kr].calls;
  for (int64_t i = 0; i < ns; i++) {
    if (i + SP_AHEAD < ns) { /* the calls of a channel are strided: fetched ahead */
      const sp_end_t *ra = &p->recvs[vi[i + SP_AHEAD]];
      __builtin_prefetch(&sc[p->sends[si[i + SP_AHEAD]].call]);
      __builtin_prefetch(&rc[ra->wait >= 0 ? ra->wait : ra->call]);
    }
    sp_wcall_t *snd = &w->ranks[ks].calls[p->sends[si[i]].call];
    const sp_end_t *re = &p->recvs[vi[i]];
    sp_wcall_t *rcv = &w->ranks[kr].calls[re->call];
    /* who waited: a blocking receive itself, a nonblocking one's completing
     * call (the posting call is not read then: one cache miss less) */
    sp_wcall_t *wt = re->wait == -1 ? rcv : re->wait >= 0 ? &w->ranks[kr].calls[re->wait] : NULL;
    w->pairs++;
    /* Late Sender: the receive waited from its start until the send started
     * (a Waitall of several: the largest, sp__waits_mark keeps it). */
    if (wt && snd->start > wt->start) {
      int64_t d = wt->end - wt->start, late = snd->start - wt->start;
      if (sp__waits_mark(w, kr, wt, SP_WAIT_LATE_SENDER, late < d ? late : d, ks, wt->start))
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

/* Merges the sorted runs of at[0..n) (run j at [b[j], b[j + 1]), nb of
 * them) pairwise until one is left, through tmp; the result in at. */
static void sp_at_merge(sp_at_t *at, sp_at_t *tmp, int64_t *b, int64_t nb, int64_t n) {
  sp_at_t *src = at, *dst = tmp;
  while (nb > 1) {
    int64_t k = 0, j = 0;
    for (; j + 1 < nb; j += 2) {
      int64_t x = b[j], xe = b[j + 1], y = b[j + 1], ye = b[j + 2], o = b[j];
      while (x < xe && y < ye) dst[o++] = sp_at_cmp(&src[y], &src[x]) < 0 ? src[y++] : src[x++];
      while (x < xe) dst[o++] = src[x++];
      while (y < ye) dst[o++] = src[y++];
      b[k++] = b[j];
    }
    if (j < nb) {
      memcpy(dst + b[j], src + b[j], (size_t)(b[j + 1] - b[j]) * sizeof *dst);
      b[k++] = b[j];
    }
    b[k] = n;
    nb = k;
    sp_at_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != at) memcpy(at, src, (size_t)n * sizeof *at);
}

/* Puts a channel's ends E[ix[0..n)] (all of one rank: its calls) in start order. They
 * come region by region, each region's in order (the completions of
 * nonblocking receives in completion order, mostly their posting order),
 * so only a channel fed by several regions (MPI_Send and MPI_Isend,
 * MPI_Recv and MPI_Irecv) needs it, and then its runs are merged (a
 * natural merge sort: O(n) for the usual two runs). at (2n) and b (n + 1)
 * are scratch, shared by the channels. */
static void sp_chan_order(const sp_wcall_t *calls, const sp_end_t *E, int32_t *ix, int64_t n,
                          sp_at_t *at, int64_t *b) {
  int64_t i = 1;
  while (i < n && E[ix[i]].region == E[ix[0]].region && E[ix[i]].call > E[ix[i - 1]].call) i++;
  if (i >= n) return; /* one region's, in its (start) order already */
  int64_t nb = 0;
  for (int64_t j = 0; j < n; j++) {
    if (j + SP_AHEAD < n) __builtin_prefetch(&calls[E[ix[j + SP_AHEAD]].call]);
    at[j] = (sp_at_t){calls[E[ix[j]].call].start, calls[E[ix[j]].call].end, ix[j]};
    if (j == 0 || sp_at_cmp(&at[j], &at[j - 1]) < 0) b[nb++] = j;
  }
  b[nb] = n;
  sp_at_merge(at, at + n, b, nb, n);
  for (int64_t j = 0; j < n; j++) ix[j] = (int32_t)at[j].i;
}

static int sp_p2p_pair_all(sp_waits_t *w, sp_p2p_t *p) {
  int64_t nch = p->map.n;
  int32_t *ix = malloc((size_t)(p->nsends + p->nrecvs + 1) * sizeof *ix);
  int64_t *sf = malloc((size_t)(nch + 2) * sizeof *sf),
          *rf = malloc((size_t)(nch + 2) * sizeof *rf);
  int rc = ix && sf && rf ? 0 : SP_READER_ENOMEM;
  if (rc == 0) {
    sp_by_chan(p->schan, p->nsends, nch, sf, ix);
    sp_by_chan(p->rchan, p->nrecvs, nch, rf, ix + p->nsends);
  }
  int32_t *si = ix, *vi = ix ? ix + p->nsends : NULL;
  int64_t most = 1; /* the longest channel: the scratch of sp_chan_order */
  for (int64_t c = 0; rc == 0 && c < nch; c++) {
    if (sf[c + 1] - sf[c] > most) most = sf[c + 1] - sf[c];
    if (rf[c + 1] - rf[c] > most) most = rf[c + 1] - rf[c];
  }
  sp_at_t *at = rc == 0 ? malloc((size_t)most * 2 * sizeof *at) : NULL;
  int64_t *b = rc == 0 ? malloc((size_t)(most + 1) * sizeof *b) : NULL;
  if (rc == 0 && (!at || !b)) rc = SP_READER_ENOMEM;
  for (int64_t c = 0; rc == 0 && c < nch; c++) {
    int64_t ns = sf[c + 1] - sf[c], nv = rf[c + 1] - rf[c];
    const sp_chan_t *key = &p->map.keys[c];
    int ks = sp_reader_rank_index(w->reader, key->src);
    int kr = sp_reader_rank_index(w->reader, key->dst);
    if (ks >= 0 && ns > 1) sp_chan_order(w->ranks[ks].calls, p->sends, si + sf[c], ns, at, b);
    if (kr >= 0 && nv > 1) sp_chan_order(w->ranks[kr].calls, p->recvs, vi + rf[c], nv, at, b);
    rc = sp_p2p_channel(w, p, &p->map.keys[c], si + sf[c], ns, vi + rf[c], nv);
  }
  free(at);
  free(b);
  free(ix);
  free(sf);
  free(rf);
  return rc;
}

int sp__waits_match_p2p(sp_waits_t *w) {
  sp_p2p_t p;
  memset(&p, 0, sizeof p);
  /* counted at load; a completion is at most one end */
  int64_t ns = w->nsends + w->ndone, nr = w->nrecvs + w->ndone, cap = 16;
  while (cap < 2 * (ns + nr) + 2) cap *= 2;
  size_t tn = (size_t)w->nranks * (size_t)(w->ncomms + 1);
  p.sends = malloc((size_t)(ns + 1) * sizeof *p.sends);
  p.recvs = malloc((size_t)(nr + 1) * sizeof *p.recvs);
  p.schan = malloc((size_t)(ns + 1) * sizeof *p.schan);
  p.rchan = malloc((size_t)(nr + 1) * sizeof *p.rchan);
  p.map.slot = calloc((size_t)cap, sizeof *p.map.slot);
  p.map.cap = cap;
  p.tsend = calloc(tn, 1);
  p.trecv = calloc(tn, 1);
  int rc = p.sends && p.recvs && p.schan && p.rchan && p.map.slot && p.tsend && p.trecv
               ? 0
               : SP_READER_ENOMEM;
  /* Region by region: a run of calls that are no messages is skipped whole. */
  for (int k = 0; rc == 0 && k < w->nranks; k++) {
    const sp_wrank_t *rk = &w->ranks[k];
    for (int r = 0; rc == 0 && r < rk->nruns; r++) {
      int op = rk->calls[rk->runs[r]].op;
      if (op != SP_OP_SEND && op != SP_OP_SSEND && op != SP_OP_ISEND && op != SP_OP_SENDRECV &&
          op != SP_OP_RECV && op != SP_OP_IRECV)
        continue;
      for (int64_t i = rk->runs[r]; rc == 0 && i < rk->runs[r + 1]; i++)
        rc = sp_p2p_call(w, &p, k, (int32_t)i);
    }
  }
  for (int k = 0; rc == 0 && k < w->nranks; k++) rc = sp_p2p_done(w, &p, k);
  if (rc == 0) rc = sp_p2p_pair_all(w, &p);
  free(p.sends);
  free(p.recvs);
  free(p.schan);
  free(p.rchan);
  free(p.map.slot);
  free(p.map.keys);
  free(p.tsend);
  free(p.trecv);
  return rc;
}
