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
  int64_t start;
  int32_t k;    /* rank index of the call */
  int32_t call; /* its index in calls[] */
} sp_end_t;

static int sp_end_cmp(const void *a, const void *b) {
  const sp_end_t *x = a, *y = b;
  if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->call > y->call) - (x->call < y->call);
}

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
  if (sends) p->sends[p->nsends++] = (sp_end_t){c->comm, me, other, c->tag, c->start, k, i};
  if (recvs) p->recvs[p->nrecvs++] = (sp_end_t){c->comm, other, me, c->tag, c->start, k, i};
}

/* Pairs one channel: sends s[0..ns), receives v[0..nv) of the same key. */
static void sp_p2p_channel(sp_waits_t *w, sp_p2p_t *p, const sp_end_t *s, int64_t ns,
                           const sp_end_t *v, int64_t nv) {
  const sp_end_t *key = ns ? s : v;
  int ks = sp_reader_rank_index(w->reader, key->src);
  int kr = sp_reader_rank_index(w->reader, key->dst);
  if (ks < 0 || kr < 0) {
    w->unpaired[SP_UNP_NOT_PROFILED] += ns + nv;
    return;
  }
  uint8_t t =
      (uint8_t)(sp_taint(w, p->tsend, ks, key->comm) | sp_taint(w, p->trecv, kr, key->comm));
  if (t || ns != nv) {
    w->unpaired[t & SP_T_NONBLOCKING ? SP_UNP_NONBLOCKING
                : t                  ? SP_UNP_UNKNOWN
                                     : SP_UNP_NO_PARTNER] += ns + nv;
    return;
  }
  for (int64_t i = 0; i < ns; i++) {
    sp_wcall_t *snd = &w->ranks[ks].calls[s[i].call];
    sp_wcall_t *rcv = &w->ranks[kr].calls[v[i].call];
    w->pairs++;
    /* Late Sender: the receive waited from its start until the send started. */
    if (rcv->op != SP_OP_IRECV && snd->start > rcv->start) {
      int64_t d = rcv->end - rcv->start, late = snd->start - rcv->start;
      sp__waits_mark(w, kr, rcv, SP_WAIT_LATE_SENDER, late < d ? late : d, ks, rcv->start);
    }
    /* Late Receiver: a blocking send still running when the receive was
     * posted waited for it (an eager send that returned before did not). */
    if ((snd->op == SP_OP_SEND || snd->op == SP_OP_SSEND) && rcv->start > snd->start &&
        snd->end >= rcv->start) {
      int64_t d = snd->end - snd->start, late = rcv->start - snd->start;
      sp__waits_mark(w, ks, snd, SP_WAIT_LATE_RECEIVER, late < d ? late : d, kr, snd->start);
    }
  }
}

int sp__waits_match_p2p(sp_waits_t *w) {
  sp_p2p_t p;
  memset(&p, 0, sizeof p);
  int64_t n = 0;
  for (int k = 0; k < w->nranks; k++) n += w->ranks[k].ncalls;
  size_t tn = (size_t)w->nranks * (size_t)(w->ncomms + 1);
  p.sends = malloc((size_t)(n + 1) * sizeof *p.sends);
  p.recvs = malloc((size_t)(n + 1) * sizeof *p.recvs);
  p.tsend = calloc(tn, 1);
  p.trecv = calloc(tn, 1);
  int rc = p.sends && p.recvs && p.tsend && p.trecv ? 0 : SP_READER_ENOMEM;
  for (int k = 0; rc == 0 && k < w->nranks; k++)
    for (int64_t i = 0; i < w->ranks[k].ncalls; i++) sp_p2p_call(w, &p, k, (int32_t)i);
  if (rc == 0) {
    qsort(p.sends, (size_t)p.nsends, sizeof *p.sends, sp_end_cmp);
    qsort(p.recvs, (size_t)p.nrecvs, sizeof *p.recvs, sp_end_cmp);
  }
  /* Walk both lists channel by channel (the key without the start). */
  int64_t a = 0, b = 0;
  while (rc == 0 && (a < p.nsends || b < p.nrecvs)) {
    sp_end_t key = a < p.nsends ? p.sends[a] : p.recvs[b];
    if (a < p.nsends && b < p.nrecvs) {
      sp_end_t k2 = p.recvs[b];
      k2.start = key.start = INT64_MIN;
      k2.call = key.call = -1;
      if (sp_end_cmp(&k2, &key) < 0) key = k2;
    }
    key.start = INT64_MIN;
    key.call = -1;
    int64_t a2 = a, b2 = b;
    while (a2 < p.nsends && p.sends[a2].comm == key.comm && p.sends[a2].src == key.src &&
           p.sends[a2].dst == key.dst && p.sends[a2].tag == key.tag)
      a2++;
    while (b2 < p.nrecvs && p.recvs[b2].comm == key.comm && p.recvs[b2].src == key.src &&
           p.recvs[b2].dst == key.dst && p.recvs[b2].tag == key.tag)
      b2++;
    sp_p2p_channel(w, &p, p.sends + a, a2 - a, p.recvs + b, b2 - b);
    a = a2;
    b = b2;
  }
  free(p.sends);
  free(p.recvs);
  free(p.tsend);
  free(p.trecv);
  return rc;
}
