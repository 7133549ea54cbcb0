/* waits.h - wait states of MPI calls (issue 50; docs/wait-states.md).
 *
 * sp_waits_build reads every rank's MPI call records and regions, pairs
 * sends with receives by MPI's matching rule and collectives by
 * communicator and order (waits_match.c, waits_coll.c), and classifies
 * each paired call's waiting time as Scalasca does: Late Sender, Late
 * Receiver, Wait at N x N, Wait at Barrier, Late Broadcast, Early Reduce,
 * each with its cause, the late partner's rank and the region it was in
 * when the waiting started (waits_classify.c). Stamps are on rank 0's
 * clock (the reader's alignment). Pairs that cannot be made are counted
 * by reason, never guessed. */
#ifndef SP_WAITS_H
#define SP_WAITS_H

#include <stdint.h>

#include "scope_profiler_reader.h"

enum {
  SP_WAIT_LATE_SENDER,
  SP_WAIT_LATE_RECEIVER,
  SP_WAIT_NXN,
  SP_WAIT_BARRIER,
  SP_WAIT_LATE_BCAST,
  SP_WAIT_EARLY_REDUCE,
  SP_WAIT_NSTATES
};
/* "late_sender", ... (column names) and "Late Sender", ... (for people). */
extern const char *const sp_wait_keys[SP_WAIT_NSTATES];
extern const char *const sp_wait_titles[SP_WAIT_NSTATES];

/* Why calls were left unpaired (counted per call). */
enum {
  SP_UNP_NO_PARTNER,    /* the partner's call is not in the file (counts or order disagree) */
  SP_UNP_NOT_PROFILED,  /* the partner rank has no rank group in the file */
  SP_UNP_NONBLOCKING,   /* a nonblocking receive in a file without completions */
  SP_UNP_UNKNOWN,       /* the call's tag, partner or communicator was not recorded */
  SP_UNP_NO_MESSAGE,    /* a completed receive without a source: cancelled, MPI_PROC_NULL */
  SP_UNP_NOT_COMPLETED, /* a nonblocking receive no recorded wait or test completed */
  SP_UNP_NREASONS
};
extern const char *const sp_unpaired_text[SP_UNP_NREASONS];

/* What an MPI call does, for matching (from its region name). */
typedef enum sp_wop {
  SP_OP_OTHER,    /* waits, tests, probes, RMA, I/O: not matched */
  SP_OP_SEND,     /* blocking send: Send, Bsend, Rsend */
  SP_OP_SSEND,    /* synchronous send */
  SP_OP_ISEND,    /* nonblocking send: its message is matched at the call */
  SP_OP_RECV,     /* blocking receive */
  SP_OP_IRECV,    /* nonblocking receive */
  SP_OP_SENDRECV, /* Sendrecv, Sendrecv_replace */
  SP_OP_BARRIER,
  SP_OP_NXN, /* Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter(_block) */
  SP_OP_1N,  /* Bcast, Scatter(v) */
  SP_OP_N1,  /* Reduce, Gather(v) */
  SP_OP_COLL /* other collectives (Scan, nonblocking ones): ordered, not classified */
} sp_wop_t;
sp_wop_t sp_wop_of(const char *name);

/* A call of a rank's call tree (thread 0) that is not an MPI call. */
typedef struct sp_witem {
  int64_t start, end;
  int32_t region, parent, path; /* parent item, -1 for a root; path id */
} sp_witem_t;

/* One MPI call of a rank (48 bytes: a million calls per rank are common,
 * and their pages were a fifth of --waits' time). */
typedef struct sp_wcall {
  int64_t start, end;
  int64_t wait;         /* ns in its wait state (0: none) */
  int32_t region, path; /* path id of a call with a wait (on a worker thread: the
                         * region alone), else -1 */
  int32_t comm;         /* global communicator index (sp_waits_t.comms), -1 unknown */
  /* The peer and tag as recorded serve only the pairing, which reads them
   * before it marks the call; a mark (sp__waits_mark) sets the cause in
   * their place, which is read only of a call with a wait (state >= 0). */
  union {
    struct {
      int32_t peer, tag;
    };
    struct {
      int32_t cause_rank;   /* world rank of the late partner, -1 */
      int32_t cause_region; /* its innermost open non-MPI region then, -1 none */
    };
  };
  int8_t op;     /* sp_wop_t */
  int8_t state;  /* SP_WAIT_*, -1 without a wait */
  int8_t worker; /* 1: made on a thread other than 0 */
  int8_t done;   /* a nonblocking receive or a Sendrecv: 1 when a completion names it */
} sp_wcall_t;

/* A request a wait or test completed (rank<N>/mpi/completions), its calls
 * found in the rank's calls[] (waits_done.c). */
typedef struct sp_wdone {
  int32_t post, wait; /* the posting and the completing call; -1 not in the file */
  int32_t peer, tag;  /* the partner's world rank (-1: none) and the tag */
  int32_t comm;       /* global communicator index, -1 */
  int8_t send;        /* 1: a send */
} sp_wdone_t;

typedef struct sp_wrank {
  int id;            /* world rank (rank<N>) */
  sp_witem_t *items; /* by start ascending, end descending */
  int64_t nitems;
  int64_t item_hint; /* the item found last (waits_tree.c) */
  sp_wcall_t *calls; /* region by region, each by start */
  int64_t ncalls;
  int64_t *runs; /* where each region's calls start in calls[]; runs[nruns] = ncalls */
  int nruns;
  int64_t runs_cap;
  uint8_t *run_flags; /* per run, SP_RUN_* bits, noted as its calls are read */
  int64_t flags_cap;
  int32_t *gcomm; /* local communicator id -> global index, nlocal of them */
  int nlocal;
  sp_wdone_t *done; /* its completions (waits_done.c) */
  int64_t ndone;
} sp_wrank_t;

/* A run's calls as read: not in start order (they are sorted then), made
 * on threads other than 0 (their completions are found by their stamps). */
enum { SP_RUN_UNSORTED = 1, SP_RUN_MIXED = 2 };

/* A communicator as its members know it: world ranks in its rank order. */
typedef struct sp_wcomm {
  int32_t *members;
  int size;
  int ordinal; /* among the communicators of the same members, by id */
} sp_wcomm_t;

typedef struct sp_wpath {
  int32_t parent, region; /* parent path (-1: root) and last region */
} sp_wpath_t;

typedef struct sp_waits {
  sp_reader_t *reader;
  int nranks; /* the reader's ranks, by index */
  sp_wrank_t *ranks;
  int ncomms;
  sp_wcomm_t *comms;
  int npaths;
  sp_wpath_t *paths;
  int32_t *path_slot; /* the paths' hash table while building (waits_tree.c) */
  int64_t path_cap;
  int64_t mpi_calls;              /* MPI call records read */
  int has_tags;                   /* some MPI region has tag and comm datasets */
  int has_comms;                  /* some rank has its communicator table */
  int has_done;                   /* some rank has its completion table */
  int64_t pairs, colls;           /* messages and collective instances paired */
  int64_t nsends, nrecvs, ncolls; /* calls of each kind, counted at load */
  int64_t unpaired[SP_UNP_NREASONS];
  int64_t nonblocking; /* Irecv calls left unpaired (no completion table) */
  int64_t ndone;       /* completions read, over the ranks */
} sp_waits_t;

/* Reads and classifies; 0 or a reader error (message in the reader). */
int sp_waits_build(sp_reader_t *r, sp_waits_t *w);
void sp_waits_free(sp_waits_t *w);

/* waits_tree.c: region of rank index k's innermost open non-MPI call at t, or -1. */
int32_t sp_waits_region_at(sp_waits_t *w, int k, int64_t t);
/* Builds rank k's items' parents and paths. 0 or SP_READER_ENOMEM. */
int sp__waits_tree(sp_waits_t *w, int k);
/* The path id of rank k's call c; -1 when out of memory. */
int32_t sp__waits_call_path(sp_waits_t *w, int k, const sp_wcall_t *c);
/* "a/b/MPI_Recv" of path p into buf (cut to cap). */
void sp_waits_path_name(const sp_waits_t *w, int32_t p, char *buf, size_t cap);

/* waits_done.c: reads rank k's completions into ranks[k].done, after its
 * calls are loaded, ordered and their communicators known. 0 or a reader error. */
int sp__waits_done(sp_waits_t *w, int k);

/* waits_match.c / waits_coll.c: pair and classify (0 or SP_READER_ENOMEM). */
int sp__waits_match_p2p(sp_waits_t *w);
int sp__waits_match_coll(sp_waits_t *w);
/* waits_classify.c: sets the call's wait, state, cause and path (0, or
 * SP_READER_ENOMEM when its path could not be stored). */
int sp__waits_mark(sp_waits_t *w, int k, sp_wcall_t *c, int state, int64_t wait, int cause_k,
                   int64_t at);

/* waits_sum.c: per call path and rank (rank: a rank index) the ns of each
 * state and their sum, rows with some wait, most first; per (state, world
 * rank, region) of the causes the ns and calls, by state, most first. Of
 * the ranks[0..nranks) (rank indices). 0 or SP_READER_ENOMEM; free *out. */
typedef struct sp_wrow {
  int32_t path, rank;
  int64_t ns[SP_WAIT_NSTATES], total;
} sp_wrow_t;
typedef struct sp_cause {
  int32_t state, rank, region; /* world rank; region -1: none */
  int64_t ns, calls;
} sp_cause_t;
int sp_waits_rows(const sp_waits_t *w, const int *ranks, int nranks, sp_wrow_t **out, int64_t *n);
int sp_waits_causes(const sp_waits_t *w, const int *ranks, int nranks, sp_cause_t **out,
                    int64_t *n);

#endif
