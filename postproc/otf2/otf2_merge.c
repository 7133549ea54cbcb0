/* otf2_merge.c - one rank's selected calls, streamed in the order they are
 * written: by thread, then start (ties: the longer call first, so an
 * enclosing call is entered before the calls it holds, then region).
 *
 * The reader's merge (sp_reader_merge_*, reader_merge.c; the call tree
 * sweeps large ranks through it too) gives the calls in that order in
 * bounded memory: a chunk per sorted run, not the rank's calls (the whole
 * rank took 80 bytes a call: 796 MB for 1e7 calls). Here each call gets
 * its region's definition id and, for an MPI call region, its bytes, peer,
 * tag and communicator (sp_reader_mpi_load, whole: memory for that pair
 * only; the communicator as its OTF2 ref, otf2_comms.c). */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

typedef struct sp_pair {
  int32_t region;          /* region definition id */
  int kind, op;            /* SP_OTF2_MPI_* of the region and its collective op */
  sp_reader_mpi_t mpi;     /* an MPI call region's bytes and peers (present = 0: none) */
  sp_reader_values_t vals; /* the values per call (present = 0: none) */
} sp_pair_t;

/* Calls taken from the reader's merge at a time (40 bytes each). */
#define SP_OTF2_BATCH 1024

struct sp_otf2_merge {
  sp_otf2_run_t *run;
  sp_pair_t *pairs; /* by slot: sel->regions[slot] */
  int npairs;
  sp_reader_merge_t *m;
  OTF2_CommRef *comm_ref; /* recorded communicator id -> OTF2 ref (otf2_comms.c) */
  int ncomms;
  sp_reader_call_t batch[SP_OTF2_BATCH]; /* calls [i, n) not yet given */
  int64_t i, n;
};

static int sp_reader_exit(const sp_selection_t *sel, int64_t err) {
  sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
  return sp_exit_for_reader((int)err);
}

int sp__otf2_merge_open(sp_otf2_run_t *run, int j, sp_otf2_merge_t **out) {
  const sp_selection_t *sel = run->sel;
  int k = sel->ranks[j], n = sel->nregions;
  sp_otf2_merge_t *m = calloc(1, sizeof *m);
  *out = m;
  if (!m) return SP_EXIT_IO;
  m->run = run;
  m->pairs = calloc((size_t)(n ? n : 1), sizeof *m->pairs);
  int32_t *keys = malloc((size_t)(n ? n : 1) * sizeof *keys);
  int rc = m->pairs && keys ? 0 : SP_EXIT_IO;
  for (int q = 0; rc == 0 && q < n; q++) {
    int g = sel->regions[q];
    sp_pair_t *p = &m->pairs[q];
    m->npairs = q + 1;
    keys[q] = p->region = run->region_def[g];
    p->kind = sp__otf2_mpi_kind(sp_reader_region_name(sel->reader, g), &p->op);
    sp_reader_info_t info;
    if (sp_reader_info(sel->reader, g, k, &info) != 0 || !info.present || !info.has_times ||
        info.num_intervals == 0)
      continue;
    /* The pair's values, whole: memory for the rank's selected pairs. */
    int64_t e = sp_reader_values_load(sel->reader, g, k, &p->vals);
    if (e == 0 && p->kind != SP_OTF2_MPI_NONE) e = sp_reader_mpi_load(sel->reader, g, k, &p->mpi);
    if (e < 0) rc = sp_reader_exit(sel, e);
  }
  if (rc == 0) rc = sp__otf2_comms_rank(run, k, &m->comm_ref, &m->ncomms);
  int e = rc ? 0 : sp_reader_merge_open(sel->reader, k, sel->regions, keys, n, &m->m);
  if (e < 0) rc = sp_reader_exit(sel, e);
  free(keys);
  return rc;
}

int sp__otf2_merge_next(sp_otf2_merge_t *m, sp_call_t *c) {
  const sp_otf2_run_t *run = m->run;
  int64_t got = 1;
  for (;;) {
    if (m->i == m->n) {
      got = sp_reader_merge_next_n(m->m, m->batch, SP_OTF2_BATCH);
      if (got <= 0) break;
      m->i = 0;
      m->n = got;
    }
    const sp_reader_call_t x = m->batch[m->i++];
    if (x.end < run->win0 || x.start > run->win1) continue;
    if (x.start < run->base) {
      sp_msg(SP_QUIET, "%s: a call starts before the file's first start", run->sel->file);
      return -SP_EXIT_DATA;
    }
    const sp_pair_t *p = &m->pairs[x.slot];
    int has = p->mpi.present && x.index < p->mpi.n;
    sp_otf2_msg_t msg = {-1, -1, -1, SP_OTF2_COMM_WORLD};
    if (has) {
      int32_t id = p->mpi.comm ? p->mpi.comm[x.index] : -1;
      msg = (sp_otf2_msg_t){p->mpi.bytes[x.index], p->mpi.peer[x.index],
                            p->mpi.tag ? p->mpi.tag[x.index] : -1,
                            id >= 0 && id < m->ncomms ? m->comm_ref[id] : SP_OTF2_COMM_WORLD};
    }
    *c = (sp_call_t){x.start,       x.end,
                     x.thread,      p->region,
                     msg,           (int8_t)(has ? p->kind : SP_OTF2_MPI_NONE),
                     (int8_t)p->op, p->vals.present ? &p->vals : NULL,
                     x.index};
    return 1;
  }
  return got < 0 ? -sp_reader_exit(run->sel, got) : 0;
}

void sp__otf2_merge_close(sp_otf2_merge_t *m) {
  if (!m) return;
  sp_reader_merge_close(m->m);
  for (int i = 0; m->pairs && i < m->npairs; i++) {
    sp_reader_mpi_free(&m->pairs[i].mpi);
    sp_reader_values_free(&m->pairs[i].vals);
  }
  free(m->pairs);
  free(m->comm_ref);
  free(m);
}
