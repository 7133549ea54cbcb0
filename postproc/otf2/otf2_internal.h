/* otf2_internal.h - what the parts of the OTF2 export share; never installed.
 *
 * The export runs in three steps: otf2_events.c writes each (rank, thread)'s
 * calls, streamed in order by otf2_merge.c, as ENTER/LEAVE events and
 * notes the locations it used;
 * otf2_defs.c then writes the global definitions (clock, system tree,
 * locations, regions, run metadata); otf2_export.c opens and closes the
 * archive around them, once per file. */
#ifndef SP_OTF2_INTERNAL_H
#define SP_OTF2_INTERNAL_H

#include <otf2/otf2.h>

#include "export_otf2.h"

/* One OTF2 location: a thread of a rank, or an extra location of that
 * thread for calls that overlap others without nesting (layer > 0). Its
 * OTF2 id is its index in sp_otf2_run_t.locs. */
typedef struct sp_otf2_loc {
  int rank_j;       /* position in sel->ranks (also the location group id) */
  int32_t thread;   /* thread id as recorded (0 without thread ids) */
  int layer;        /* 0: the thread itself; n: its n-th extra location */
  uint64_t nevents; /* ENTER + LEAVE records written */
} sp_otf2_loc_t;

/* otf2_values.c: the attributes (key, type) and string values of the
 * values per call written so far; ids are indices. */
typedef struct sp_otf2_attr {
  char *key;
  OTF2_Type type;
} sp_otf2_attr_t;
typedef struct sp_otf2_vtab {
  sp_otf2_attr_t *attrs;
  int nattrs, capattrs;
  char **strs; /* string values, id = index (written first by otf2_defs.c) */
  uint32_t nstrs;
  uint32_t *hash; /* open addressing over strs: index + 1, 0 empty */
  uint32_t hcap;
  OTF2_AttributeList *list; /* reused for every ENTER */
} sp_otf2_vtab_t;

/* otf2_comms.c: the communicators of the MPI events met so far, OTF2 ref
 * index + 1 (0 is MPI_COMM_WORLD): a recorded id and its members' world
 * ranks in communicator rank order. */
typedef struct sp_otf2_comm {
  int32_t id, size;
  int32_t *members;
  uint64_t hash;
} sp_otf2_comm_t;
typedef struct sp_otf2_comms {
  sp_otf2_comm_t *all;
  int n, cap;
  int *slot; /* open addressing over all: index + 1, 0 empty */
  int hcap;
  int32_t max_member; /* the largest world rank among the members (-1: none) */
} sp_otf2_comms_t;

typedef struct sp_otf2_run {
  const sp_selection_t *sel;
  OTF2_Archive *archive;
  int32_t *region_def; /* reader region index -> region definition id; -1: not selected */
  sp_otf2_loc_t *locs;
  int nlocs, cap;
  int64_t win0, win1; /* calls kept: those that overlap [win0, win1] (ns, aligned) */
  int64_t base;       /* stamps are written as t - base (base <= 0: none negative) */
  int64_t first;      /* earliest stamp written (INT64_MAX: none) */
  int64_t last;       /* latest stamp written */
  int64_t calls;      /* calls written */
  int64_t moved;      /* of them, on extra locations */
  int64_t mpi_events; /* MPI message and collective events written */
  sp_otf2_vtab_t vt;  /* values per call as attributes (otf2_values.c) */

  /* The communicators of the MPI events (otf2_comms.c). */
  sp_otf2_comms_t comms;
  int scan; /* merges scan each pair first (a pair was met out of order) */
  /* OTF2's errors so far (its error callback counts them): after one, the
   * archive is abandoned, not closed: OTF2 flushes a writer whose write
   * failed again when it is closed, and crashed doing so on a full disk. */
  const int *otf2_errors;
} sp_otf2_run_t;

/* Not an SP_EXIT_* code: an unscanned merge met a pair out of order; the
 * archive is dropped and written again with run->scan set. */
#define SP_OTF2_RESCAN 1000

/* otf2_values.c: the attribute list of call e of a pair whose values are v
 * (NULL when it set none; *rc an SP_EXIT_* code on failure). */
OTF2_AttributeList *sp__otf2_values_list(sp_otf2_run_t *run, const sp_reader_values_t *v, int64_t e,
                                         int *rc);
void sp__otf2_values_free(sp_otf2_run_t *run);

/* otf2_mpi.c: what an MPI call region's bytes and peer become. */
enum { SP_OTF2_MPI_NONE, SP_OTF2_MPI_SEND, SP_OTF2_MPI_ISEND, SP_OTF2_MPI_RECV, SP_OTF2_MPI_COLL };
#define SP_OTF2_COMM_WORLD ((OTF2_CommRef)0)

/* The kind of region name (SP_OTF2_MPI_*) and, for a collective, its
 * OTF2_CollectiveOp in *op. */
int sp__otf2_mpi_kind(const char *name, int *op);
/* What one MPI call's events carry: payload, partner (a rank of comm),
 * tag (-1: not recorded) and communicator. */
typedef struct sp_otf2_msg {
  int64_t bytes;
  int32_t peer, tag;
  OTF2_CommRef comm;
} sp_otf2_msg_t;
/* The events of one call at its ENTER stamp (after the ENTER) and at its
 * LEAVE stamp (before the LEAVE); *nevents counts them. */
OTF2_ErrorCode sp__otf2_mpi_enter(OTF2_EvtWriter *w, uint64_t t, int kind, const sp_otf2_msg_t *m,
                                  uint64_t *request, uint64_t *nevents);
OTF2_ErrorCode sp__otf2_mpi_leave(OTF2_EvtWriter *w, uint64_t t, int kind, int op,
                                  const sp_otf2_msg_t *m, uint64_t *nevents);

/* otf2_comms.c: rank index k's map from recorded communicator id to OTF2
 * ref (*map of *n ids, the caller frees it; NULL and 0 for a file without
 * the table), adding the communicators not met before. Returns an SP_EXIT_*
 * code. comms_free releases the run's communicators. */
int sp__otf2_comms_rank(sp_otf2_run_t *run, int k, OTF2_CommRef **map, int *n);
void sp__otf2_comms_free(sp_otf2_run_t *run);

/* The stamp t as written: t - base, as unsigned. */
static inline uint64_t sp_otf2_time(const sp_otf2_run_t *run, int64_t t) {
  return (uint64_t)t - (uint64_t)run->base;
}

/* One call as written. */
typedef struct sp_call {
  int64_t start, end;
  int32_t thread;
  int32_t region;                 /* region definition id */
  sp_otf2_msg_t msg;              /* MPI call: bytes -1 when unknown or not an MPI call */
  int32_t kind;                   /* SP_OTF2_MPI_* of the region (32 bits, as op: */
  int32_t op;                     /* its collective op; two bytes read as one stalled) */
  const sp_reader_values_t *vals; /* its pair's values per call (NULL: none) */
  int64_t index;                  /* its position in the pair */
} sp_call_t;

/* otf2_merge.c: the selected calls of rank position j that overlap the
 * window, streamed by thread, then start (ties: longer first, region).
 * open returns an SP_EXIT_* code (*m set even on failure: close it);
 * refill takes the next batch from the reader's merge into batch[0, n)
 * (1, 0 at the end, or minus an SP_EXIT_* code, -SP_OTF2_RESCAN: a pair
 * out of order); merge_call (inline: it runs once per call) makes each a
 * call as written, early says a call starts before the first start. */
typedef struct sp_otf2_pair {
  int32_t region;          /* region definition id */
  int kind, op;            /* SP_OTF2_MPI_* of the region and its collective op */
  sp_reader_mpi_t mpi;     /* an MPI call region's bytes and peers (present = 0: none) */
  sp_reader_values_t vals; /* the values per call (present = 0: none) */
} sp_pair_t;

/* Calls taken from the reader's merge at a time (40 bytes each: 10 KB
 * that stay in the L1 cache between the merge's writes and their reads). */
#define SP_OTF2_BATCH 256

typedef struct sp_otf2_merge {
  sp_otf2_run_t *run;
  sp_pair_t *pairs; /* by slot: sel->regions[slot] */
  int npairs;
  sp_reader_merge_t *m;
  OTF2_CommRef *comm_ref; /* recorded communicator id -> OTF2 ref (otf2_comms.c) */
  int ncomms;
  sp_reader_call_t batch[SP_OTF2_BATCH]; /* calls [0, n) of the last refill */
  int64_t n;
} sp_otf2_merge_t;
int sp__otf2_merge_open(sp_otf2_run_t *run, int j, sp_otf2_merge_t **m);
int sp__otf2_merge_refill(sp_otf2_merge_t *m);
int sp__otf2_merge_early(const sp_otf2_merge_t *m);
void sp__otf2_merge_close(sp_otf2_merge_t *m);

/* Call x of the batch as written into *c: 1, 0 when it is outside the
 * window, or minus an SP_EXIT_* code. The caller walks the batch with its
 * own index (kept in a register: a field of m read and written per call
 * lengthened every call's chain of loads). */
static inline int sp__otf2_merge_call(const sp_otf2_merge_t *m, const sp_reader_call_t *x,
                                      sp_call_t *c) {
  const sp_otf2_run_t *run = m->run;
  if (x->end < run->win0 || x->start > run->win1) return 0;
  if (x->start < run->base) return sp__otf2_merge_early(m);
  const sp_pair_t *p = &m->pairs[x->slot];
  int has = p->mpi.present && x->index < p->mpi.n;
  sp_otf2_msg_t msg = {-1, -1, -1, SP_OTF2_COMM_WORLD};
  if (has) {
    int32_t id = p->mpi.comm ? p->mpi.comm[x->index] : -1;
    msg = (sp_otf2_msg_t){p->mpi.bytes[x->index], p->mpi.peer[x->index],
                          p->mpi.tag ? p->mpi.tag[x->index] : -1,
                          id >= 0 && id < m->ncomms ? m->comm_ref[id] : SP_OTF2_COMM_WORLD};
  }
  *c = (sp_call_t){x->start,  x->end,
                   x->thread, p->region,
                   msg,       has ? p->kind : SP_OTF2_MPI_NONE,
                   p->op,     p->vals.present ? &p->vals : NULL,
                   x->index};
  return 1;
}

/* otf2_events.c: every selected call, per location in time order. The
 * archive's event files are open. Returns an SP_EXIT_* code. */
int sp__otf2_events(sp_otf2_run_t *run);

/* otf2_defs.c: the global definitions after the events. Returns an
 * SP_EXIT_* code. */
int sp__otf2_defs(sp_otf2_run_t *run, const char *label);

/* otf2_defs.c: the run's /metadata as trace file properties
 * SCOPE_PROFILER::<NAME> (OTF2 allows [A-Z0-9_] names). */
int sp__otf2_properties(sp_otf2_run_t *run);

/* otf2_place.c: an archive is written into a temporary directory beside
 * DIR's (sp__otf2_place_begin puts its path in tmp, cap bytes) and then
 * replaces the one in DIR (sp__otf2_place_commit), or is removed
 * (sp__otf2_place_abort). place_check refuses, before any work, an earlier
 * traces/ that is not an OTF2 archive's. No link is ever followed. Each
 * returns an SP_EXIT_* code after saying why. */
int sp__otf2_place_check(const char *dir);
int sp__otf2_place_begin(const char *dir, char *tmp, size_t cap);
int sp__otf2_place_commit(const char *tmp, const char *dir);
void sp__otf2_place_abort(const char *tmp);

#endif
