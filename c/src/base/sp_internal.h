/*
 * sp_internal.h - state shared by the core's source files. Never installed.
 *
 * One struct (sp__state) holds the session; per-thread records hold the
 * buffers. The hot path touches only the calling thread's record, found
 * through a thread-local pointer, so it takes no lock.
 */
#ifndef SP_INTERNAL_H
#define SP_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "scope_profiler.h"

#define SP_LIKELY(x) __builtin_expect(!!(x), 1)
#define SP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SP_HIDDEN __attribute__((visibility("hidden")))

/* Runs stmt and gives the host its errno back: every public call leaves
 * errno as it found it, even when a write, an allocation or a log line
 * inside failed or touched it. Used on the slow paths and entry points
 * only; the hot path's fast path touches nothing that sets errno. */
#define SP_KEEP_ERRNO(stmt)       \
  do {                            \
    int sp__saved_errno_ = errno; \
    stmt;                         \
    errno = sp__saved_errno_;     \
  } while (0)

/* What start/stop record, chosen once at setup (the reference mode table). */
typedef enum sp_mode {
  SP_MODE_OFF = 0,      /* not set up, finalized, or profiling_activated = 0 */
  SP_MODE_TRACE = 1,    /* start/end stamps; the common case, tested first */
  SP_MODE_COUNT = 2,    /* call counts only (time_trace = 0) */
  SP_MODE_GENERAL = 3,  /* any combination with LIKWID markers */
  SP_MODE_SIGNALED = 4, /* a flush signal arrived: each thread flushes on its next call */
  /* SP_MODE_TRACE while the trace is paused or truncated (the gate's
   * SP_GATE_SKIP): calls are counted, without a frame, before the inside
   * mark (hot_path.c). Below SP_MODE_OFF, so that the entry's one test of
   * the mode (<= SP_MODE_OFF) sends both aside. Only sp__trace_mode_sync
   * (trace_window.c) stores it. */
  SP_MODE_TRACE_SKIP = -1
} sp_mode_t;

/* One recorded call, in clock ticks (converted to ns when written). */
typedef struct sp_event {
  int64_t start; /* ticks at sp_start */
  int64_t end;   /* ticks at sp_stop; garbage while the call is open */
} sp_event_t;

/* One thread's events of one region. */
typedef struct sp_rbuf {
  sp_event_t *ev;  /* cap events, pages touched when allocated */
  int64_t n;       /* slots used, including calls still open */
  int64_t cap;     /* allocated slots */
  int64_t calls;   /* completed calls in count-only mode */
  int64_t spilled; /* events of this buffer already in the spill file */
} sp_rbuf_t;

/* sp_region_add_calls saturates a count here, leaving room for the 2^40
 * calls that sp_stop may still add to it; finalize writes a count that
 * reached it as INT64_MAX. */
#define SP_CALLS_SAT (INT64_MAX - ((int64_t)1 << 40))

/* One open call on a thread's stack. */
typedef struct sp_frame {
  int32_t region; /* handle, or SP_REGION_SKIPS */
  int32_t skips;  /* SP_REGION_SKIPS: the calls the frame stands for */
  int64_t slot;   /* index in the region's buffer, or an SP_SLOT_* below */
} sp_frame_t;

/* sp_frame_t.region of a frame (slot SP_SLOT_SKIPPED) that stands for
 * calls started while the trace was paused or truncated in a trace-only
 * session: they were counted without frames (sp__skips) and
 * noted as this frame when a call opened inside them; their regions are
 * not known, so a stop of any region ends one of them. */
enum { SP_REGION_SKIPS = -1 };

/* sp_frame_t.slot of a call without a slot: counted only (count-only
 * mode), or left out of the trace (started while it was paused or
 * truncated: trace_window.c); its stop writes nothing. */
enum { SP_SLOT_COUNTED = -1, SP_SLOT_SKIPPED = -2 };

/* sp__state.trace_gate's bits: the trace's fast paths (hot_path.c) run
 * only while it is 0, so a pause costs the unpaused path nothing. */
enum {
  SP_GATE_NO_TSC = 1,    /* stamps are not the TSC's */
  SP_GATE_PAUSED = 2,    /* sp_trace_pause until sp_trace_resume */
  SP_GATE_TRUNCATED = 4, /* SCOPE_PROFILER_TRACE_MAX_MB reached, for good */
  SP_GATE_SKIP = SP_GATE_PAUSED | SP_GATE_TRUNCATED
};

/* One entry of a thread's by-name cache: the name pointer a caller passed
 * and the region it named then. */
typedef struct sp_name_slot {
  const char *ptr; /* the caller's pointer, NULL when empty */
  int32_t h;       /* region handle */
  int32_t unused;
} sp_name_slot_t;

#define SP_NAME_SLOTS 64 /* direct-mapped, by a hash of the pointer: 1 KiB */

/* Everything one thread records. Never freed while the process runs, so
 * the thread-local pointer stays valid across sessions; a record of an
 * exited thread is reused by the next new thread. */
typedef struct sp_thread {
  sp_frame_t *stack;
  int32_t depth;
  int32_t stack_cap;
  sp_rbuf_t *bufs;  /* indexed by region handle */
  int32_t nbufs;    /* handles covered: registered ones only (h < nbufs: h is valid) */
  int32_t bufs_cap; /* allocated entries of bufs */
  int32_t index;    /* thread number within the rank, as in thread_ids */
  /* >0 while its thread runs a library call (hot_path.c; nested in a
   * signal handler: 2). Read by sp_setup again (session_quiesce.c). */
  int32_t inside;
  /* 1 while its thread's sp__skips may be above 0 (calls left out of the
   * trace open): the traced fast paths test this field of the record they
   * hold, and take the slow path, which notes the calls (hot_path.c).
   * Set before the count rises above -1, cleared after it is back at -1,
   * by its thread alone. */
  int64_t skips_armed;
  /* Its thread's sp__skips (the calls left out of the trace, counted
   * without frames), for finalize and a discard on other threads, which
   * read and clear it under the state lock; &skips_kept once its thread
   * has exited (its thread-local storage goes with it). */
  int64_t *skips_at;
  int64_t skips_kept;
  /* By name, the region last started through each name pointer: programs
   * pass the same pointers (literals, arrays of names) again and again, so
   * a compare of the name with the region's own replaces the strlen, the
   * hash and the table lookup. A pointer may hold another name later (a
   * reused buffer, a Fortran temporary): the compare, not the pointer,
   * decides, so a hit is never a wrong region. */
  sp_name_slot_t names[SP_NAME_SLOTS];
  int retired;          /* its thread has exited */
  unsigned quiet_gen;   /* sp_setup again saw it outside a call (session_quiesce.c) */
  int in_session;       /* has recorded in the running session (under the state lock) */
  int signal_flushed;   /* flushed its events after a flush signal */
  struct sp_agg *agg;   /* aggregate mode: its call paths (aggregate.c), else NULL */
  struct sp_mpix *mpix; /* bytes and peers of its MPI calls (mpi_extra.c), else NULL */
  struct sp_vals *vals; /* its values per call (call_values.c), NULL until the first */
  struct sp_thread *next;
} sp_thread_t;

/* A registered region. Entries never move once published. */
typedef struct sp_region_entry {
  char *name;    /* NUL-terminated copy */
  uint32_t len;  /* bytes, without NUL */
  uint64_t hash; /* sp__name_hash(name, len) */
} sp_region_entry_t;

/* A (ticks, CLOCK_MONOTONIC ns) pair; conversion interpolates between them. */
typedef struct sp_calib_point {
  int64_t ticks;
  int64_t ns;
} sp_calib_point_t;

typedef struct sp_calib {
  sp_calib_point_t *pts; /* increasing in both fields */
  int64_t n, cap;
} sp_calib_t;

/* ---- out_temp.c ---- */
/* Which file was at a path (lstat), to tell it from one another writer put
 * there later. */
typedef struct sp_out_id {
  int present;
  uint64_t dev, ino;
} sp_out_id_t;
SP_HIDDEN void sp__out_id_take(const char *path, sp_out_id_t *id);

/* ---- the session state ---- */

/* One measurement of this rank's clock against rank 0's (clock_offset.c):
 * offset_ns = this rank's CLOCK_MONOTONIC minus rank 0's at the same
 * instant, so rank 0's time of a stamp t is t - offset_ns. */
typedef struct sp_clock_offset {
  int64_t offset_ns; /* this clock minus rank 0's, ns */
  int64_t at_ns;     /* when it was measured, on this rank's own clock, ns */
  int64_t error_ns;  /* bound: half the round trip of the best exchange, ns */
  int32_t valid;     /* 1 once measured */
  int32_t spilled;   /* its SP_SPILL_CLOCK record is in the spill file */
} sp_clock_offset_t;
/* How the events reach the file at finalize (raw_write.c). */
typedef enum sp_raw_mode {
  SP_RAW_POSIX,     /* each rank opens the file itself and pwrites its blocks */
  SP_RAW_MPIIO,     /* each rank MPI_File_write_at through a collective open */
  SP_RAW_COLLECTIVE /* one MPI_File_write_all over all ranks per round */
} sp_raw_mode_t;

/* The SCOPE_PROFILER_* settings that are not fields of sp_config
 * (docs/settings.md), read and checked by config.c at sp_setup, so that a mistyped
 * value is reported at the start of the job; no other file reads them. */
/* The settings that are not sp_config fields, read from the environment at
 * sp_setup by config.c through the rows of settings.def. */
typedef struct sp_settings {
  int async_flush;       /* _ASYNC_FLUSH: full buffers written by the writer thread */
  int clock;             /* _CLOCK: 0 auto, 1 tsc, 2 monotonic (clock.c) */
  int verbose;           /* _VERBOSE=1: finalize's timings and the slab's use */
  int flush_signals[16]; /* _FLUSH_SIGNALS, as signal numbers (signal_flush.c) */
  int nflush_signals;
  int metadata;                         /* _METADATA: 0 auto, 1 root, 2 collective */
  int layout_collective;                /* _METADATA=collective, else rank 0 creates the layout */
  int raw_write_choice;                 /* _RAW_WRITE: the value's index in settings.def */
  int raw_write;                        /* _RAW_WRITE: an sp_raw_mode_t, or -1 for auto */
  int64_t round_bytes;                  /* _ROUND_BYTES, 0 for the default */
  int reduce_keep;                      /* _REDUCE_KEEP: k of a reduced profile */
  int64_t finalize_timeout;             /* _FINALIZE_TIMEOUT: s that finalize waits for all ranks
                                         * to arrive (mpi_arrival.c) */
  char likwid_marker_file[SP_PATH_MAX]; /* _LIKWID_MARKER_FILE (tests), "" if unset */
} sp_settings_t;

/* Session state. Written only by setup/finalize and under `lock`. */
typedef struct sp_state {
  pthread_mutex_t lock; /* regions, thread list, spill file, calibration */
  sp_config cfg;
  sp_settings_t set; /* the other settings (config.c) */
  char file_path[SP_PATH_MAX];
  sp_out_id_t out_at_setup; /* the file at file_path when sp_setup ran */
  char spill_dir[SP_PATH_MAX];
  int session;      /* 1 between setup and finalize (even when profiling is off) */
  int discarding;   /* a second sp_setup is discarding the session (under lock) */
  int forked;       /* this process was forked from one with a session (fork_guard.c) */
  int exit_flushed; /* exit_flush.c has put the session into the spill files */
  int path_ok;      /* output directory writable at setup */
  int discard;      /* file_path is the null device: finalize writes nothing (out_target.c) */
  int finalizing;   /* sp_finalize runs (its hooks too): sp_setup is refused */
  int clock_tsc;    /* stamps are TSC ticks (else CLOCK_MONOTONIC ns) */
  /* SP_GATE_* bits (atomic): whether calls start in the trace, and whether
   * its fast path may run (trace_window.c). */
  int trace_gate;
  int64_t trace_slots_left;   /* TRACE_MAX_MB's budget of event slots (atomic) */
  int64_t trace_truncated_ns; /* CLOCK_MONOTONIC ns of the truncation, 0: none */
  sp_thread_t *threads;
  int32_t nthreads;
  sp_calib_t calib;
  /* This rank's clock against rank 0's: [0] when MPI became usable after
   * sp_setup, [1] at sp_finalize (clock_offset.c); set under lock. */
  sp_clock_offset_t clock_off[2];
  int64_t events_lost;   /* events dropped for lack of memory or disk */
  int64_t last_calib_ns; /* when the last calibration point was taken */
  /* This session's id in its spill files (SP_SPILL_RUN, .aggspill), random
   * at sp_setup and never 0: a merge tells apart the runs without MPI
   * rank that wrote one spill directory (recovery.c). */
  uint64_t run_id;
  int rank; /* MPI rank if known, else -1 */
  int size; /* MPI size if known, else 1 */
  int64_t misuse[SP_MISUSE_COUNT_];
} sp_state_t;

extern SP_HIDDEN sp_state_t sp__state;
extern SP_HIDDEN volatile int sp__mode;
extern SP_HIDDEN __thread sp_thread_t *sp__tls __attribute__((tls_model("initial-exec")));

/* Calls started while the trace was paused or truncated in a trace-only
 * session, still open, all inside the innermost frame: counted, without
 * frames (hot_path.c). A thread-local of its own, not a field of the
 * record, so that a paused start or stop reaches it as the disabled path
 * reaches the mode: one load of its offset, one access (the record would
 * be a load more and a test that it exists). SP_SKIPS_NONE (far below 0)
 * until the thread has a record; SP_SKIPS_REST (-1) with none open while
 * the record's skips_armed is 0: in both the paused start's add leaves it
 * at 0 or below and takes the slow path, which makes the record or arms
 * it before counting. Written by its thread alone, also outside the inside
 * mark (relaxed atomics), and cleared (to 0, when above) through
 * sp_thread_t.skips_at by a discard or finalize. */
extern SP_HIDDEN __thread int64_t sp__skips __attribute__((tls_model("initial-exec")));
#define SP_SKIPS_NONE (INT64_MIN / 2)
#define SP_SKIPS_REST (-1)

/* The calling thread's calls left out of the trace and still open (> 0),
 * or none (0 or below). */
static inline int64_t sp__skips_open(void) { return __atomic_load_n(&sp__skips, __ATOMIC_RELAXED); }

/* The library's own I/O (host_guard.c): above 0 while this thread is inside
 * the library's own work (spill files, finalize's HDF5 file, /proc reads,
 * log lines, the signal pipe) or inside a recorded I/O call (stdio reaching
 * write underneath), so that profile_io's wrappers (c/src/io/) forward
 * such calls untouched and unrecorded. The library's threads hold it for
 * their whole life (sp__thread_spawn). */
extern SP_HIDDEN __thread int sp__io_own __attribute__((tls_model("initial-exec")));
#define SP_OWN_IO(stmt) \
  do {                  \
    sp__io_own++;       \
    stmt;               \
    sp__io_own--;       \
  } while (0)

/* ---- pread_full.c ---- */

/* len bytes of fd at off through short reads: 0, or -1 at an error or the
 * file's end (the readers of spill files). */
SP_HIDDEN int sp__pread_full(int fd, void *buf, size_t len, int64_t off);

/* ---- log.c ---- */
typedef enum sp_log_kind {
  SP_LOG_ONCE_STOP_WITHOUT_START = 0,
  SP_LOG_ONCE_STOP_MISMATCH,
  SP_LOG_ONCE_INVALID_HANDLE,
  SP_LOG_ONCE_BAD_NAME,
  SP_LOG_ONCE_NOT_ACTIVE,
  SP_LOG_ONCE_NOMEM,
  SP_LOG_ONCE_SPILL,
  SP_LOG_ONCE_GROW_OPEN,
  SP_LOG_ONCE_LIKWID,
  SP_LOG_ONCE_BUSY,
  SP_LOG_ONCE_FORKED,
  SP_LOG_ONCE_THREAD_OPEN,
  SP_LOG_ONCE_META_FULL,
  SP_LOG_ALWAYS
} sp_log_kind_t;
SP_HIDDEN void sp__log(int level /* sp_log_level_t */, sp_log_kind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
SP_HIDDEN void sp__log_reset_once(void);

/* ---- clock.c ---- */
/* Whether the hot path reads the TSC, given SCOPE_PROFILER_CLOCK's choice
 * (sp_settings_t.clock: 0 auto, 1 tsc, 2 monotonic). */
SP_HIDDEN int sp__clock_detect_tsc(int choice);
SP_HIDDEN void sp__calib_reset(sp_calib_t *c);
SP_HIDDEN int sp__calib_add_now(sp_calib_t *c, int tsc, sp_calib_point_t *out);
SP_HIDDEN int sp__calib_push(sp_calib_t *c, sp_calib_point_t p);
/* Converts n events' stamps (ticks) into start[] and end[] (ns) by
 * piecewise-linear interpolation between the calibration points; *cursor
 * speeds up sorted input (start it at 0). Identity when c has no points. */
SP_HIDDEN void sp__calib_convert_events(const sp_calib_t *c, const sp_event_t *ev, int64_t n,
                                        int64_t *start, int64_t *end, int64_t *cursor);
SP_HIDDEN int64_t sp__monotonic_ns(void);

/* The TSC, for paths that checked sp__state.clock_tsc (never set where
 * there is no TSC: then this is never called). */
static inline uint64_t sp__rdtsc(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return (uint64_t)sp__monotonic_ns();
#endif
}

static inline int64_t sp__ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
  if (SP_LIKELY(sp__state.clock_tsc)) return (int64_t)__builtin_ia32_rdtsc();
#endif
  return sp__monotonic_ns();
}

/* ---- config.c ---- */
SP_HIDDEN int sp__config_resolve(const sp_config *in, sp_state_t *st);
/* SCOPE_PROFILER_OPENMP as an SP_OPENMP_*, read when the OpenMP runtime
 * starts, maybe before any sp_setup: 0 unset; a value not among the
 * choices counts as SP_OPENMP_ON (sp_setup reports it). */
SP_HIDDEN int sp__config_openmp_env(void);

/* ---- region_table.c ---- */
SP_HIDDEN uint64_t sp__name_hash(const char *s, size_t len);
SP_HIDDEN int sp__region_lookup(const char *name, size_t len, uint64_t hash);
SP_HIDDEN int sp__region_register(const char *name, size_t len);
SP_HIDDEN int sp__region_rename(int32_t h, const char *name, size_t len);
SP_HIDDEN int32_t sp__region_count(void);
SP_HIDDEN const sp_region_entry_t *sp__region_get(int32_t h);
/* The same two inline, for the by-name hot path (region_table.c). */
#define SP_REGION_CHUNK_BITS 10
extern SP_HIDDEN sp_region_entry_t *sp__region_chunks[];
extern SP_HIDDEN int32_t sp__nregions; /* published count; atomic */
static inline int32_t sp__region_count_inline(void) {
  return __atomic_load_n(&sp__nregions, __ATOMIC_ACQUIRE);
}
static inline const sp_region_entry_t *sp__region_at(int32_t h) {
  return &sp__region_chunks[h >> SP_REGION_CHUNK_BITS][h & ((1 << SP_REGION_CHUNK_BITS) - 1)];
}
SP_HIDDEN void sp__region_table_reset(void);

/* ---- thread_buffers.c ---- */
SP_HIDDEN sp_thread_t *sp__thread_get(void);
SP_HIDDEN int sp__thread_reserve(sp_thread_t *t, int32_t h);
SP_HIDDEN int sp__rbuf_make_room(sp_thread_t *t, int32_t h);
SP_HIDDEN int sp__stack_grow(sp_thread_t *t);
SP_HIDDEN void sp__threads_discard(void);
/* Counts the live threads other than self that recorded in the running
 * session; when there are none, new threads are kept from starting to
 * record until sp__threads_end_discard (sp_setup replacing a session). */
SP_HIDDEN int sp__threads_claim_discard(const sp_thread_t *self);
SP_HIDDEN void sp__threads_end_discard(void);
/* In a forked child: forgets the parent's thread records (kept, not freed). */
SP_HIDDEN void sp__threads_fork_child(void);
SP_HIDDEN void sp__threads_drop_open_calls(void);
SP_HIDDEN void sp__frames_drop_above(sp_thread_t *t, int32_t d);
/* Appends buffer h of t to the spill file (signal_flush.c, exit_flush.c). */
SP_HIDDEN int sp__thread_spill_done(sp_thread_t *t, int32_t h);

/* ---- call_values.c ---- (values per call, docs/values.md) */
/* What thread_buffers.c calls on a thread that has values (t->vals set),
 * filled by call_values.c before it makes the first one (a call table:
 * call_values.c uses thread_buffers.c, not the other way):
 * drop: event `index` of region h on t is being removed (a dropped open
 *   call): its values go, later calls' values move down one;
 * flush: appends t's values of calls that can no longer move to the spill
 *   file (a buffer spill, exit and signal flush). */
typedef struct sp_vals_hooks {
  void (*drop)(sp_thread_t *t, int32_t h, int64_t index);
  void (*flush)(sp_thread_t *t, int async); /* async: through the writer thread if it runs */
} sp_vals_hooks_t;
extern SP_HIDDEN sp_vals_hooks_t sp__vals_hooks;
SP_HIDDEN void sp__vals_flush(sp_thread_t *t);
/* Finalize and the writer: the keys of region h this session (n), the
 * name and kind (SP_VKIND_*) of key k, and values dropped in it. */
SP_HIDDEN int32_t sp__vals_nkeys(int32_t h);
SP_HIDDEN const char *sp__vals_key(int32_t h, int32_t k, int32_t *kind);
SP_HIDDEN int64_t sp__vals_lost_mem(int32_t h);
/* t's values still in memory this session: n entries, strings at *str. */
struct sp_spill_value;
SP_HIDDEN int64_t sp__vals_mem(const sp_thread_t *t, const struct sp_spill_value **e,
                               const char **str);

/* ---- trace_window.c ---- */
/* The gate and the budget of a new session (sp_setup, after the clock). */
SP_HIDDEN void sp__trace_window_setup(sp_state_t *st);
/* Takes up to want event slots of TRACE_MAX_MB's budget (all of them when
 * all_or_none); returns the slots granted. At 0 the trace is truncated
 * from now on (said once, its time kept for trace_truncated_at). */
SP_HIDDEN int64_t sp__trace_budget_take(int64_t want, int all_or_none);
/* Sets the mode to SP_MODE_TRACE_SKIP or SP_MODE_TRACE as the gate says,
 * if it is either (under the windows' lock): after every change of the
 * gate, and after anything stores SP_MODE_TRACE, which it does in place of
 * SP_MODE_TRACE_SKIP (the safe way round: calls go to paths that read the
 * gate themselves). */
SP_HIDDEN void sp__trace_mode_sync(void);
/* fork(): the windows' lock held across it (fork_guard.c). */
SP_HIDDEN void sp__trace_window_fork_lock(void);
SP_HIDDEN void sp__trace_window_fork_unlock(void);
static inline int sp__trace_gate(void) {
  return __atomic_load_n(&sp__state.trace_gate, __ATOMIC_RELAXED);
}

/* ---- session_quiesce.c ---- */
/* sp_setup again: with recording stopped, waits until every other thread
 * has been outside a library call once, then claims the discard as
 * sp__threads_claim_discard does. Returns 0, or the threads still inside
 * one (nothing claimed). Without membarrier(): the old rule, the threads
 * that have recorded. */
SP_HIDDEN int sp__threads_quiesce(const sp_thread_t *self);

/* ---- spill.c ---- */
SP_HIDDEN int sp__spill_events(int32_t region, int32_t thread, const sp_event_t *ev, int64_t n);
SP_HIDDEN void sp__spill_close(int remove_file);
/* The open spill file's path, or NULL while none is open. */
SP_HIDDEN const char *sp__spill_path(void);
/* Events whose spill write failed in this session (of events_lost). */
SP_HIDDEN int64_t sp__spill_events_failed(void);
/* sp_setup: a new session's failure counts start at 0. */
SP_HIDDEN void sp__spill_session_begin(void);
/* In a forked child: the parent's descriptor is closed, not written. */
SP_HIDDEN void sp__spill_fork_child(void);
/* One SP_SPILL_MPI_EXTRA_TC record: n values (mpi_extra.h) of (region, thread). */
struct sp_mpi_x;
SP_HIDDEN int sp__spill_mpi_extra(int32_t region, int32_t thread, const struct sp_mpi_x *x,
                                  int64_t n);
/* One SP_SPILL_MPI_DONE record: n completions of requests (mpi_extra.h). */
struct sp_mpi_done;
SP_HIDDEN int sp__spill_mpi_done(const struct sp_mpi_done *d, int64_t n);
/* Puts new run metadata into the open spill file, if one is open. */
SP_HIDDEN void sp__spill_meta_now(void);
/* An MPI rank recording a trace: its spill file is created now, with its
 * head (rank and size), so that a merge knows every rank of the job even
 * when mpirun kills some before their first flush. At sp_setup, and when
 * MPI starts after it (mpi_glue.c); nothing without a known rank. */
SP_HIDDEN void sp__spill_head_now(void);
/* Appends n samples of SCOPE_PROFILER_SAMPLE_MS (sampler.h) and the
 * ru_maxrss so far as one SP_SPILL_SAMPLES record. */
struct sp_sample;
SP_HIDDEN int sp__spill_samples(const struct sp_sample *s, int64_t n, int64_t maxrss,
                                int64_t period_ns);
/* One SP_SPILL_IO_FILES record: the rank's per-file I/O records (io_format.h). */
SP_HIDDEN int sp__spill_io_files(const void *blob, size_t len);

/* One SP_SPILL_VALUES record: an sp_spill_values_t, then body (call_values.c). */
SP_HIDDEN int sp__spill_values(const void *head, size_t hlen, const void *body, size_t blen);
/* An SP_SPILL_TRUNCATED record with sp__state.trace_truncated_ns (spill.c). */
SP_HIDDEN void sp__spill_truncated(void);

/* ---- signal_flush.c ---- */
SP_HIDDEN void sp__signal_flush_self(void); /* SP_MODE_SIGNALED: flush this thread once */
/* Installs the flush handlers of SCOPE_PROFILER_FLUSH_SIGNALS (config.c). */
SP_HIDDEN void sp__signal_setup(const sp_settings_t *set);
SP_HIDDEN void sp__signal_fork_child(void); /* restores the host's actions */
/* SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT: never flushed. */
SP_HIDDEN int sp__signal_is_fault(int signum);

/* ---- first_pages.c ---- */
/* Memory for a region's first buffer (cap SP_FIRST_CAP events) or its
 * second (SP_SECOND_CAP), kept for the process, or NULL (then malloc; any
 * other cap); whether p is such memory; giving it back (for the next
 * buffer of its size); held across fork(). */
SP_HIDDEN void *sp__first_take(int64_t cap);
SP_HIDDEN int sp__first_owns(const void *p);
SP_HIDDEN void sp__first_give(void *p);
SP_HIDDEN void sp__first_fork_lock(void);
SP_HIDDEN void sp__first_fork_unlock(void);

/* ---- event_arrays.c ---- */
/* Arrays from 64 KiB up to full_cap events (the buffer_limit; 0 when
 * buffers are unbounded) live in slots of full_cap events of a slab, and
 * grow inside them. Call at setup, while no array is held. */
SP_HIDDEN void sp__event_arrays_configure(int64_t full_cap);
/* An array of cap events with its pages touched, or NULL. */
SP_HIDDEN sp_event_t *sp__event_array_new(int64_t cap);
/* The same with its pages left untouched. */
SP_HIDDEN sp_event_t *sp__event_array_new_cold(int64_t cap);
SP_HIDDEN void sp__event_array_free(sp_event_t *ev);
/* Unmaps the slab once every array is freed (finalize). */
SP_HIDDEN void sp__event_arrays_release(void);
SP_HIDDEN void sp__event_arrays_fork_lock(void);
SP_HIDDEN void sp__event_arrays_fork_unlock(void);
/* The slab itself, for event_grow.c: arrays from SP_SLAB_MIN bytes up may
 * take a slot; a free slot or NULL (no slab, or no memory); whether p is
 * in a slot; the events per slot (0: no slab); pages faulted in now, off
 * the hot path. */
#define SP_SLAB_MIN ((size_t)8 << 10) /* smaller arrays: malloc */
SP_HIDDEN void *sp__slab_take(void);
SP_HIDDEN int sp__slab_owns(const void *p);
SP_HIDDEN int64_t sp__slab_slot_cap(void);
SP_HIDDEN void sp__event_pages_touch(void *p, size_t bytes);

/* ---- event_grow.c ---- */
/* An untouched array of cap events for the recording thread, whose pages
 * the stock's thread is asked to fault in ahead of it (no stall here). */
SP_HIDDEN sp_event_t *sp__event_array_fresh(int64_t cap);
/* An array of ncap events holding the first used events of ev (ev itself
 * when its slot has room); NULL leaves ev as it is. */
SP_HIDDEN sp_event_t *sp__event_array_resize(sp_event_t *ev, int64_t used, int64_t cap,
                                             int64_t ncap);

/* ---- array_stock.c ---- */
#define SP_FIRST_CAP 16     /* events in a region's first buffer (256 B: first_pages.c) */
#define SP_SECOND_CAP 256   /* events in the buffer it grows into (4 KiB: one page) */
#define SP_HEAD_EVENTS 2048 /* events of a stocked slot whose pages are touched (32 KiB) */
/* Starts the thread that keeps arrays of first_cap events, and slots of
 * slot_cap events (0: none), faulted in ahead of need (sp_setup). */
SP_HIDDEN void sp__stock_start(int64_t first_cap, int64_t slot_cap);
/* Waits (bounded) until the stock is full (sp_setup). */
SP_HIDDEN void sp__stock_wait_filled(void);
/* A ready array of cap events (head: a slot with only its first
 * SP_HEAD_EVENTS touched), or NULL; never waits for the stock's thread. */
SP_HIDDEN sp_event_t *sp__stock_take(int64_t cap, int head);
/* A zeroed thread record whose stack and buffer table are allocated and
 * touched, or NULL (thread_buffers.c frees its parts as its own). */
SP_HIDDEN sp_thread_t *sp__stock_take_thread(void);
/* Asks the stock's thread to fault in [p, p + bytes) without changing it;
 * urgent: the recording thread writes there now (served before the asks
 * ahead of need). Returns 0 when it cannot (not running, too many
 * requests). */
SP_HIDDEN int sp__stock_populate_ask(void *p, size_t bytes, int urgent);
SP_HIDDEN void sp__stock_stop(void); /* ends the thread, frees the stock */
SP_HIDDEN void sp__stock_fork_prepare(void);
SP_HIDDEN void sp__stock_fork_parent(void);
SP_HIDDEN void sp__stock_fork_child(void);

/* ---- flush_writer.c ---- */
/* Hands full[0..n) to the writer thread; returns a pre-faulted array of cap
 * events to continue with, or NULL when the caller must write itself. */
SP_HIDDEN sp_event_t *sp__writer_swap(sp_event_t *full, int64_t cap, int64_t n, int32_t region,
                                      int32_t thread);
SP_HIDDEN void sp__writer_drain(void); /* waits until every handed array is written */
/* Hands one SP_SPILL_VALUES record (hlen bytes of head, then blen of body,
 * malloc'ed: the writer frees it) to the writer thread, behind the arrays
 * handed before; 0, or -1 when there is no writer (the caller writes it
 * and keeps rec). */
SP_HIDDEN int sp__writer_values(void *rec, size_t hlen, size_t blen);
SP_HIDDEN void sp__writer_stop(void); /* drains and ends the thread */
SP_HIDDEN void sp__writer_fork_prepare(void);
SP_HIDDEN void sp__writer_fork_parent(void);
SP_HIDDEN void sp__writer_fork_child(void); /* drops the parent's queue */
/* Async-signal-safe: 1 while handed arrays wait to be written (0 on the
 * writer thread itself); a count that grows as the writer writes. */
SP_HIDDEN int sp__writer_behind(void);
SP_HIDDEN int64_t sp__writer_progress(void);

/* ---- spill_published.c ---- */
/* Rank 0, before publishing partial as final: notes it in the spill dir. */
SP_HIDDEN void sp__spill_note_publish(const char *partial, const char *final);
/* Rank 0, after every rank removed its spill file: the note and the dir. */
SP_HIDDEN void sp__spill_note_clear(void);
/* merge: 1 when dir's spill files were published as out_path (said). */
SP_HIDDEN int sp__spill_note_check(const char *dir, const char *out_path);

/* ---- crash_drain.c ---- */
/* While the writer runs, fault and abort signals wait for its queue. */
SP_HIDDEN void sp__crash_drain_install(void);
SP_HIDDEN void sp__crash_drain_remove(void);

/* ---- fork_guard.c, exit_flush.c ---- */
/* Installs the pthread_atfork handlers, once (sp_setup). */
SP_HIDDEN void sp__fork_guard_install(void);
/* Registers the flush into the spill files at exit, once (sp_setup). */
SP_HIDDEN void sp__exit_flush_install(void);

/* ---- name_encoding.c ---- */
SP_HIDDEN size_t sp__link_name_encode(const char *name, size_t len, char *out, size_t cap);
/* 1 when s[0..n) is UTF-8 without NUL bytes (names, files, metadata). */
SP_HIDDEN int sp__utf8_ok(const char *s, size_t n);

/* ---- mpi_glue.c, mpi_stub.c (its stubs without MPI) ---- */
SP_HIDDEN void sp__mpi_note_setup(void);
SP_HIDDEN int sp__mpi_rank_if_known(void);
/* Who writes under MPI: "<job>:<world rank>" (the job: rank 0's random
 * number at MPI_Init, the same on every rank; at most SP_MPI_WRITER_MAX
 * bytes with its NUL), "" before MPI_Init or without MPI. The files this
 * process publishes say so (an extended attribute), and it never replaces
 * one another rank of the same job published (write/out_temp.c). */
#define SP_MPI_WRITER_MAX 48
SP_HIDDEN const char *sp__mpi_writer(void);
/* MPI is usable with more than one rank: sp_finalize is collective, and a
 * rank that records nothing takes part too (finalize.c). */
SP_HIDDEN int sp__par_usable(void);

/* ---- mpi_profile.c: MPI calls as regions (profile_mpi): mpi_profile.h ---- */

/* ---- likwid_glue.c / likwid_stub.c ----
 * Called only in SP_MODE_GENERAL (use_likwid in a LIKWID build). */
struct sp_par;
SP_HIDDEN int sp__likwid_available(void);
SP_HIDDEN void sp__likwid_init(void);        /* sp_setup: LIKWID_MARKER_INIT */
SP_HIDDEN void sp__likwid_thread_init(void); /* first call on a new thread */
SP_HIDDEN void sp__likwid_start(int32_t h);  /* before the start stamp */
SP_HIDDEN void sp__likwid_stop(int32_t h);   /* after the stop stamp */
/* sp_finalize, after the raw data and before publication; collective over
 * par: adds rank<N>/likwid/... to the per-rank file at partial_path and
 * likwid/... to the columnar file at columnar_path (either NULL: none). */
SP_HIDDEN int sp__likwid_finalize(struct sp_par *par, const char *partial_path,
                                  const char *columnar_path);

/* ---- nvtx_glue.c / nvtx_stub.c ----
 * Called only in SP_MODE_GENERAL (cfg.nvtx in a build with NVTX3). */
SP_HIDDEN int sp__nvtx_available(void);
SP_HIDDEN void sp__nvtx_init(void);       /* sp_setup: the domain, names anew */
SP_HIDDEN void sp__nvtx_start(int32_t h); /* before the start stamp */
SP_HIDDEN void sp__nvtx_stop(int32_t h);  /* after the stop stamp */

/* ---- state.c: the calls up a floor (docs/design.md, "Rooms") ----
 * Calls run one way between the core's rooms: a lower room never names a
 * function of a higher one. Where the record or MPI room must reach up (a
 * full buffer to spill, a signal's flush, LIKWID's markers, what MPI_Init
 * and MPI_Finalize start), it calls through this table, which the session
 * fills (session.c) when sp_setup runs, before any recording. A NULL
 * entry is a call not wired yet: the MPI hooks and meta_changed are
 * checked (MPI_Init and sp_metadata_set may come before sp_setup); the
 * others run only in a session, after the table is filled. */
typedef struct sp_calls_up {
  /* spill/flush_writer.c: sp__writer_swap. */
  sp_event_t *(*writer_swap)(sp_event_t *full, int64_t cap, int64_t n, int32_t region,
                             int32_t thread);
  /* spill/spill.c: sp__spill_events. */
  int (*spill_events)(int32_t region, int32_t thread, const sp_event_t *ev, int64_t n);
  /* spill/spill.c: sp__spill_values (one SP_SPILL_VALUES record);
   * spill/flush_writer.c: sp__writer_values (the same by the writer thread). */
  int (*spill_values)(const void *head, size_t hlen, const void *body, size_t blen);
  int (*writer_values)(void *rec, size_t hlen, size_t blen);
  /* spill/spill.c: sp__spill_truncated (TRACE_MAX_MB reached). */
  void (*spill_truncated)(void);
  /* session/signal_flush.c: sp__signal_flush_self. */
  void (*signal_flush_self)(void);
  /* likwid/: sp__likwid_thread_init, sp__likwid_start, sp__likwid_stop. */
  void (*likwid_thread_init)(void);
  void (*likwid_start)(int32_t h);
  void (*likwid_stop)(int32_t h);
  /* nvtx/: sp__nvtx_start, sp__nvtx_stop (SCOPE_PROFILER_NVTX=1). */
  void (*nvtx_start)(int32_t h);
  void (*nvtx_stop)(int32_t h);
  /* MPI_Finalize reached with a session open (mpi/mpi_glue.c): sp_finalize. */
  int (*mpi_finalize)(void);
  /* MPI_Init ran in a session (mpi/mpi_glue.c): sp__spill_head_now. */
  void (*mpi_rank_known)(void);
  /* Inside the spill room, against its file order (spill.c writes the
   * metadata, run_meta.c's sp_metadata_set asks for it at once: spill.c's
   * sp__spill_meta_now; crash_drain.c waits for the writer that installs
   * it: flush_writer.c's sp__writer_behind and sp__writer_progress). */
  void (*meta_changed)(void);
  int (*writer_behind)(void);
  int64_t (*writer_progress)(void);
  /* The OpenMP room's ompt_start_tool, maybe before any sp_setup: the
   * session wires this entry when the library loads (session.c). */
  int (*openmp_env)(void);
  /* The OpenMP room's tool, loaded by the runtime alone (OMP_TOOL_LIBRARIES)
   * into a program that never calls the library: sp_setup(NULL) and
   * sp_finalize, for the session it runs itself (ompt_tool.c). */
  int (*tool_setup)(const sp_config *cfg);
  int (*tool_finalize)(void);
  /* spill/mpi_extra.c: sp__mpi_extra_flush, whenever a thread's events go
   * to the spill file, so that its MPI calls' values and completions go
   * with them (not only 4096 at a time): a SIGKILL loses none of them for
   * the events it leaves. */
  void (*mpi_extra_flush)(sp_thread_t *t);
} sp_calls_up_t;
SP_HIDDEN extern sp_calls_up_t sp__up;

/* ---- random.c ---- */
/* A random 64-bit number (getrandom, else the clock and pid). */
SP_HIDDEN uint64_t sp__random64(void);

/* ---- finalize.c ---- */
SP_HIDDEN int sp__finalize_session(void);

#endif /* SP_INTERNAL_H */
