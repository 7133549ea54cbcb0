/* event_grow.c - how a region's event array grows, with the array stock's
 * help: a first buffer and a slot come ready from the stock's thread
 * (array_stock.c), which is asked to fault the next pages in ahead of the
 * events; the slab and malloc underneath are event_arrays.c's. Apart from
 * event_arrays.c so that calls run one way: the slab < the stock < this. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp_internal.h"

sp_event_t *sp__event_array_fresh(int64_t cap) {
  /* Untouched: the stock's thread faults its pages in ahead of the events
   * (MADV_POPULATE_WRITE); touching them all here stalled the recording
   * thread for 0.6 ms (10 ms on slower VMs) at a flush. Where it cannot,
   * they fault in one by one as events arrive. */
  sp_event_t *p = sp__event_array_new_cold(cap);
  if (p) (void)sp__stock_populate_ask(p, (size_t)cap * sizeof *p, 1);
  return p;
}

/* Asks the stock's thread to fault in events [from, to) of the slot at ev
 * before the buffer grows into them; returns whether it will. */
static int sp_populate_ahead(sp_event_t *ev, int64_t from, int64_t to) {
  if (to <= from) return 1;
  return sp__stock_populate_ask(ev + from, (size_t)(to - from) * sizeof *ev, 0);
}

sp_event_t *sp__event_array_resize(sp_event_t *ev, int64_t used, int64_t cap, int64_t ncap) {
  const int64_t slot_cap = sp__slab_slot_cap();
  const int in_slot = ev && sp__slab_owns(ev);
  const size_t grown = (size_t)(ncap > cap ? ncap - cap : 0) * sizeof *ev;
  if (!ev) { /* a first buffer, faulted in by the stock's thread */
    sp_event_t *ne = sp__stock_take(ncap, 0);
    if (!ne && ncap == SP_FIRST_CAP) ne = sp__event_array_new(ncap); /* first_pages.c */
    if (ne) return ne;
  }
  /* The next growth's pages are faulted in ahead (two doublings), by the
   * stock's thread; when it could not be asked, they are touched here. */
  const int64_t ahead = ncap < slot_cap / 4 ? 4 * ncap : slot_cap;
  if (in_slot && ncap <= slot_cap) { /* the slot has room: no copy */
    if (!sp_populate_ahead(ev, ncap, ahead)) sp__event_pages_touch(ev + cap, grown);
    return ev;
  }
  sp_event_t *ne = NULL;
  if (!in_slot && ncap <= slot_cap && (size_t)ncap * sizeof *ev >= SP_SLAB_MIN) {
    ne = sp__stock_take(slot_cap, 1); /* a slot whose first SP_HEAD_EVENTS are touched */
    if (ne) {
      const int64_t head = SP_HEAD_EVENTS < slot_cap ? SP_HEAD_EVENTS : slot_cap;
      if (ncap > head) sp__event_pages_touch(ne + head, (size_t)(ncap - head) * sizeof *ev);
      (void)sp_populate_ahead(ne, ncap > head ? ncap : head, ahead);
    } else {
      ne = sp__slab_take(); /* NULL: stay with malloc */
      if (ne) sp__event_pages_touch(ne, (size_t)ncap * sizeof *ev);
    }
  }
  /* Past the limit, out of the slab; or out of a first or second buffer
   * (first_pages.c: the second's piece, else malloc), not realloc's. */
  if (!ne && (in_slot || sp__first_owns(ev))) ne = sp__event_array_new(ncap);
  if (ne) {
    if (used > 0) memcpy(ne, ev, (size_t)used * sizeof *ev);
    sp__event_array_free(ev);
    return ne;
  }
  if (in_slot || sp__first_owns(ev)) return NULL; /* not malloc's: never realloc'd */
  /* realloc moves a large block by remapping it, without a copy. */
  ne = realloc(ev, (size_t)ncap * sizeof *ne);
  if (ne) sp__event_pages_touch(ne + cap, grown);
  return ne;
}
