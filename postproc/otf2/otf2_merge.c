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
  /* Unscanned (one read of each call) unless a pair was found out of
   * order once: the export then starts again with scanned merges. */
  unsigned flags = run->scan ? 0 : SP_READER_MERGE_UNSCANNED;
  int e = rc ? 0 : sp_reader_merge_open_flags(sel->reader, k, sel->regions, keys, n, flags, &m->m);
  if (e < 0) rc = sp_reader_exit(sel, e);
  free(keys);
  return rc;
}

int sp__otf2_merge_refill(sp_otf2_merge_t *m) {
  int64_t got = sp_reader_merge_next_n(m->m, m->batch, SP_OTF2_BATCH);
  m->n = got > 0 ? got : 0;
  if (got == SP_READER_EORDER) return -SP_OTF2_RESCAN; /* no message: the export starts again */
  return got < 0 ? -sp_reader_exit(m->run->sel, got) : got > 0;
}

int sp__otf2_merge_early(const sp_otf2_merge_t *m) {
  sp_msg(SP_QUIET, "%s: a call starts before the file's first start", m->run->sel->file);
  return -SP_EXIT_DATA;
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
