/* waits_classify.c - a wait's amount and its cause: the late partner's
 * rank and the region it was in when the waiting started (its innermost
 * open call that is not an MPI call, from the stamps: waits_tree.c). */
#include "waits.h"

int sp__waits_mark(sp_waits_t *w, int k, sp_wcall_t *c, int state, int64_t wait, int cause_k,
                   int64_t at) {
  if (wait <= 0) return 0;
  /* A Sendrecv can be both a late receive and a late send: the larger wins. */
  if (c->state >= 0 && c->wait >= wait) return 0;
  if (c->path < 0) c->path = sp__waits_call_path(w, k, c);
  if (c->path < 0) return SP_READER_ENOMEM;
  c->state = (int8_t)state;
  c->wait = wait;
  c->cause_rank = w->ranks[cause_k].id;
  c->cause_region = sp_waits_region_at(w, cause_k, at);
  return 0;
}
