/*
 * scope_profiler.h - region profiler for C/Fortran HPC codes.
 *
 * Introduction
 * ------------
 * A region is a named stretch of code. Each time it runs, scope-profiler
 * records an int64 start and end stamp in nanoseconds of CLOCK_MONOTONIC
 * (the clock of Python's time.perf_counter_ns() on Linux). Stamps go to a
 * per-thread in-memory buffer; a full buffer is appended to the rank's spill
 * file; sp_finalize() writes one HDF5 file for all MPI ranks:
 *
 *     profiling_data.h5
 *       rank<N>/regions/<region link name>/start_times   int64 ns
 *       rank<N>/regions/<region link name>/end_times     int64 ns
 *
 * Region names are free text; in the file, '%' becomes "%25", '/' becomes
 * "%2F" and a name that is exactly "." becomes "%2E" (HDF5 link names cannot
 * hold '/' and "." means the group itself). The original name is also stored
 * as the attribute "name" of the region group.
 *
 * Simple use:
 *
 *     sp_setup(NULL);                        // defaults, environment overrides
 *     int h = sp_region("compute");          // once
 *     for (...) { sp_start(h); work(); sp_stop(h); }
 *     SP_BLOCK("io") { write_output(); }
 *     sp_finalize();                         // writes profiling_data.h5
 *
 * Threads: every call may be made from any thread (OpenMP or pthreads);
 * each thread records into its own buffers without locks. sp_setup() and
 * sp_finalize() must be called from one thread while no other thread is
 * inside a profiler call.
 *
 * The library never exits or aborts the host program. Problems are
 * reported once per kind through the log function (stderr, prefixed
 * "scope-profiler:" unless replaced with sp_log_set()).
 */
#ifndef SCOPE_PROFILER_H
#define SCOPE_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SP_STATIC_DEFINE)
#define SP_EXPORT
#elif defined(SP_BUILDING_LIBRARY)
#define SP_EXPORT __attribute__((visibility("default")))
#else
#define SP_EXPORT
#endif

/* ===================================================================== */
/*  Version                                                              */
/* ===================================================================== */

/* SP_VERSION_MAJOR, _MINOR, _PATCH and SP_VERSION_STRING, generated from the
 * project's version (CMake project(VERSION)). */
#include "scope_profiler_version.h"
#define SP_VERSION_NUMBER (SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100 + SP_VERSION_PATCH)

/* Version of the file layout written (root attribute scope_profiler_schema). */
#define SP_SCHEMA_VERSION 1

/** Runtime version: SP_VERSION_NUMBER of the library actually linked. */
SP_EXPORT unsigned sp_version_number(void);
/** Runtime version as "MAJOR.MINOR.PATCH"; a static string. */
SP_EXPORT const char *sp_version_string(void);

/* ===================================================================== */
/*  Errors                                                               */
/* ===================================================================== */

/* X-macro: one list generates the enum, sp_strerror() and sp_err_name(). */
#define SP_ERRNO_MAP(XX)                                                  \
  XX(EINVAL, -1, "invalid argument")                                      \
  XX(ENOMEM, -2, "out of memory")                                         \
  XX(ENAMETOOLONG, -3, "region name longer than SP_NAME_MAX bytes")       \
  XX(ENOTSETUP, -4, "profiler not set up (call sp_setup first)")          \
  XX(EIO, -5, "I/O error while writing profile data")                     \
  XX(EHDF5, -6, "HDF5 call failed")                                       \
  XX(EMPI, -7, "MPI call failed or MPI unusable")                         \
  XX(EPATH, -8, "output path not writable")                               \
  XX(ESPILL, -9, "spill file unreadable or damaged")                      \
  XX(ENOTSUP, -10, "feature not built into this library")                 \
  XX(ETOOMANY, -11, "too many regions")                                   \
  XX(ELOST, -12, "recorded events were lost (see the message on stderr)") \
  XX(ETIMEDOUT, -13, "ranks did not reach sp_finalize in time")           \
  XX(EPARTIAL, -14, "some ranks or records could not be recovered")       \
  XX(EBUSY, -15, "other threads are recording in the running session")

typedef enum sp_errno {
#define SP__XX(name, value, text) SP_##name = value,
  SP_ERRNO_MAP(SP__XX)
#undef SP__XX
      SP_OK = 0
} sp_errno_t;

/** Text for an SP_E* code (or "success" for 0); never NULL. Thread-safe. */
SP_EXPORT const char *sp_strerror(int err);
/** Name of an SP_E* code ("SP_EINVAL"); "SP_OK" for 0, "SP_UNKNOWN" otherwise. */
SP_EXPORT const char *sp_err_name(int err);

/* ===================================================================== */
/*  Configuration and lifecycle                                          */
/* ===================================================================== */

/* Longest region name accepted, in bytes (without the terminating NUL). */
#define SP_NAME_MAX 4096

/* Longest output path, in bytes. */
#define SP_PATH_MAX 4096

/**
 * Profiling configuration: the options of the reference
 * ProfileManager.setup(). Fill with sp_config_init() and change fields.
 */
typedef struct sp_config {
  int profiling_activated; /**< master switch; 0 makes every call a no-op (default 1) */
  int use_likwid;          /**< also call LIKWID markers around regions (default 0) */
  int time_trace;          /**< record start/end stamps; 0 = call counts only (default 1) */
  int flush_to_disk;       /**< append full buffers to spill files (default 1) */
  int64_t buffer_limit;    /**< events per thread and region before a flush (default 100000) */
  const char
      *file_path;  /**< merged output file; copied by sp_setup (default "profiling_data.h5") */
  int profile_mpi; /**< record MPI calls as regions named "MPI_Allreduce" etc. (default 0;
                        needs libscope_profiler before libmpi in the link line) */
  int aggregate;   /**< profile mode: per call path statistics in memory of constant size
                        (default 0; see sp_report and docs/profile-mode.md) */
  int sample_ms;   /**< every sample_ms ms (1 to 3600000) a thread samples the process's RSS
                        and CPU time into rank<N>/samples; 0 = off (default 0) */
  int layout;      /**< the trace file's layout, an SP_LAYOUT_* (default SP_LAYOUT_AUTO) */
  int reduce;      /**< profile mode's file reduced across ranks: per call path the min, max,
                        mean and std over the ranks, per region the k ranks of largest and
                        smallest total whole; 1 on, 0 off, -1 auto: on from 1,024 ranks
                        (default -1; docs/profile-mode.md) */
  int nvtx;        /**< each region start/stop is also an NVTX push/pop in the domain
                        "scope-profiler", for Nsight Systems (default 0; needs a build with
                        the NVTX3 headers, docs/gpu.md) */
  int trace_max_mb; /**< the trace stops growing past this many MB of stamps per process (16
                         bytes a call, spilled ones too): no call starts in it from then on,
                         calls open then are kept whole, rank<N>@trace_truncated_at says when,
                         profile mode goes on; 0 = no cap (default 0; see sp_trace_pause) */
  int openmp;      /**< OpenMP constructs as regions through the tools interface (OMPT, LLVM's
                        libomp): an SP_OPENMP_* (default SP_OPENMP_OFF; docs/openmp.md) */
  int profile_io;  /**< record the program's POSIX, stdio and MPI-IO calls as regions ("io:write",
                        "MPI_File_write_at", ...) with their bytes and file, and a record per
                        file and rank (default 0; docs/io.md) */
} sp_config;

/** sp_config.openmp (SCOPE_PROFILER_OPENMP=0|1|tasks|locks|tasks,locks):
 * SP_OPENMP_ON records parallel regions, worksharing and synchronization
 * waits; _TASKS adds explicit tasks, _LOCKS mutex waits (critical, locks,
 * ordered), _ALL both. The runtime asks for the tool when it starts: set the
 * variable when it starts before sp_setup (docs/openmp.md). */
enum {
  SP_OPENMP_OFF = 0,
  SP_OPENMP_ON = 1,
  SP_OPENMP_TASKS = 2,
  SP_OPENMP_LOCKS = 3,
  SP_OPENMP_ALL = 4
};

/** sp_config.layout: SP_LAYOUT_AUTO (rank<N> groups below 1,024 ranks, the
 * columnar layout from 1,024 on), SP_LAYOUT_COLUMNAR (the reference tool's
 * columnar schema 3: a fixed number of HDF5 objects at any number of ranks),
 * SP_LAYOUT_RANKS (rank<N>/regions/<name> groups at any size),
 * SP_LAYOUT_BOTH (from the same events: rank<N> groups at file_path, the
 * columnar layout at file_path followed by ".columnar.h5"). Count-only mode
 * (time_trace 0) always writes rank<N> groups. See docs/settings.md. */
enum { SP_LAYOUT_AUTO = 0, SP_LAYOUT_COLUMNAR = 1, SP_LAYOUT_RANKS = 2, SP_LAYOUT_BOTH = 3 };

/** Fills *cfg with the defaults listed in sp_config. */
SP_EXPORT void sp_config_init(sp_config *cfg);

/**
 * Starts a profiling session with cfg (NULL = defaults). Environment
 * variables override fields of cfg (see docs/settings.md):
 *   SCOPE_PROFILER_ENABLE=0|1, SCOPE_PROFILER_FILE=path,
 *   SCOPE_PROFILER_BUFFER_LIMIT=n, SCOPE_PROFILER_FLUSH=0|1,
 *   SCOPE_PROFILER_TIME_TRACE=0|1, SCOPE_PROFILER_LIKWID=0|1,
 *   SCOPE_PROFILER_SPILL_DIR=dir, SCOPE_PROFILER_CLOCK=auto|tsc|monotonic,
 *   SCOPE_PROFILER_PROFILE_MPI=0|1, SCOPE_PROFILER_FLUSH_SIGNALS=TERM,...,
 *   SCOPE_PROFILER_AGGREGATE=0|1 (profile mode, see sp_report),
 *   SCOPE_PROFILER_REDUCE=0|1|auto (profile mode reduced across ranks),
 *   SCOPE_PROFILER_SAMPLE_MS=n (RSS and CPU time every n ms; 0 = off),
 *   SCOPE_PROFILER_LAYOUT=auto|columnar|ranks|both (sp_config.layout),
 *   SCOPE_PROFILER_NVTX=0|1 (regions also as NVTX ranges, sp_config.nvtx)
 *   SCOPE_PROFILER_TRACE_MAX_MB=n (the trace's cap per process; 0 = none)
 *   SCOPE_PROFILER_OPENMP=0|1|tasks|locks|tasks,locks (sp_config.openmp),
 *   SCOPE_PROFILER_PROFILE_IO=0|1 (sp_config.profile_io)
 * Calling sp_setup again discards all regions and recorded events of the
 * previous session (without writing them) and applies the new config, also
 * while other threads have recorded in it (an OpenMP pool between parallel
 * regions): recording stops, and sp_setup waits until no other thread is
 * inside a library call. If one stays inside one for 200 ms (blocked in a
 * log function of yours, say), it is refused with SP_EBUSY and the session
 * goes on (calls made during the wait are not recorded). Calls other
 * threads left open are dropped; handles of the old session are invalid.
 * (Without membarrier(), Linux < 4.14, the old rule: refused while another
 * live thread has recorded in the session.)
 * Checks at once that the output directory is writable.
 * MPI may be initialised before or after this call.
 * Returns 0, SP_EINVAL (bad field), SP_EPATH (output not writable: profiling
 * stays on and sp_finalize reports the failure), SP_EBUSY or SP_ENOMEM.
 * In a process forked from one with a session, recording is off until it
 * calls sp_setup; that session writes "<stem>.<pid><ext>" (the pid inserted
 * before the extension of file_path), never the parent's file.
 * Not thread-safe: call from one thread.
 */
SP_EXPORT int sp_setup(const sp_config *cfg);

/**
 * Writes the profile (with MPI: one file, collectively over the
 * communicator; every rank must call it) and ends the session. Later
 * start/stop calls are no-ops until the next sp_setup. A second call, or a
 * call without setup, does nothing and returns 0. Regions still open are
 * reported and their open calls dropped.
 * Returns 0 or SP_EIO / SP_EHDF5 / SP_EMPI / SP_EPATH, or SP_ETIMEDOUT when
 * ranks did not all call it within SCOPE_PROFILER_FINALIZE_TIMEOUT seconds
 * (default 600; the missing ranks are named on stderr); the spill files are
 * kept when writing failed, so `scope-profiler-pproc merge` can recover them.
 * SP_EPATH also when another writer (another run, another communicator) put
 * a file at file_path after this sp_setup: that file is kept, and this
 * run's complete profile is left as <file_path>.<host>.<pid>.<random>.h5
 * (named on stderr).
 * SP_ELOST: the file was written, but events recorded on this process were
 * dropped (a spill write failed, memory ran out); the message on stderr
 * gives their number.
 * A process that ends without sp_finalize (exit(), a return from main,
 * Fortran `stop`) appends its recorded calls to the spill files at exit and
 * prints the scope-profiler-merge command that rebuilds the profile.
 * Callable from any thread, but not while other threads still record.
 */
SP_EXPORT int sp_finalize(void);

/** 1 between sp_setup() and sp_finalize() with profiling_activated, else 0. */
SP_EXPORT int sp_is_active(void);

/* ===================================================================== */
/*  Profile mode (sp_config.aggregate = 1): statistics instead of events  */
/* ===================================================================== */

/** One region's figures in this process so far (sp_region_stats). */
typedef struct sp_region_stats_s {
  int64_t calls;        /**< finished calls, summed over threads */
  int64_t total_ns;     /**< sum of their durations (inclusive), ns */
  int64_t min_ns;       /**< shortest call, ns (0 while calls == 0) */
  int64_t max_ns;       /**< longest call, ns */
  int64_t exclusive_ns; /**< total_ns less the calls made directly inside them, ns */
} sp_region_stats_t;

/**
 * Writes the aggregates recorded so far, of every thread and (with MPI)
 * every rank, to path, in the layout sp_finalize writes in profile mode;
 * recording goes on. Collective under MPI like sp_finalize: every rank of
 * the session's communicator calls it at the same step. The file appears
 * complete or not at all (written under a temporary name, then renamed;
 * an earlier report at path is replaced). Threads recording meanwhile are
 * read as they are (a call ending during the report may be missing).
 * The calls open on the calling thread (a time loop's region around the
 * call) count in the file as one call each lasting until now, so that
 * their children's time is inside theirs; they count again, whole, when
 * they end. Returns 0, SP_EINVAL (no path, or profile mode off: said once on
 * stderr), SP_ENOTSETUP, SP_EIO / SP_EHDF5 / SP_EMPI / SP_EPATH / SP_ETIMEDOUT.
 */
SP_EXPORT int sp_report(const char *path);

/**
 * Starts a new window: the aggregates of every thread start again from
 * zero (each thread clears its own at its next stop; until then it counts
 * as empty). A call open at that moment is counted, with its whole
 * duration, in the window in which it ends. Not collective.
 * Returns 0, SP_EINVAL (profile mode off) or SP_ENOTSETUP.
 */
SP_EXPORT int sp_reset(void);

/**
 * Trace windows: sp_trace_pause() stops calls from starting in the trace
 * (rank<N>/regions/<name>/start_times...) until sp_trace_resume(), so a
 * long run keeps only the steps asked for:
 *
 *   sp_trace_pause();
 *   for (int step = 0; step < 10000; step++) {
 *     if (step == 100) sp_trace_resume();  (steps 100 to 110 traced)
 *     if (step == 111) sp_trace_pause();
 *     ...
 *   }
 *
 * Calls open at a pause are kept whole (their stops are recorded), so the
 * trace's nesting stays consistent; a call started while paused is not in
 * the trace, its stop neither, even if the trace resumes meanwhile. Profile
 * mode's aggregates (aggregate = 1, sp_report, sp_region_stats) count every
 * call all the same. Per process (every thread), not collective, no MPI
 * call; pausing a paused trace (or resuming a running one) does nothing.
 * Without a trace (time_trace = 0) they change nothing. Cost: in a
 * trace-only session a paused start/stop pair is counted, without its
 * region, at most what a pair with profiling_activated = 0 costs through
 * function calls (a stop among calls started while paused ends the
 * innermost of them, whatever region it names: docs/trace-windows.md);
 * with profile mode it costs a counted pair, the aggregates going on; the
 * unpaused hot path pays nothing for them (docs/performance.md).
 * Returns 0 or SP_ENOTSETUP (no session). Thread-safe.
 */
SP_EXPORT int sp_trace_pause(void);
/** Ends a pause (see sp_trace_pause); a truncated trace
 *  (sp_config.trace_max_mb) stays truncated. Returns 0 or SP_ENOTSETUP. */
SP_EXPORT int sp_trace_resume(void);

/**
 * Values per call: attach key = value to the innermost call open on the
 * calling thread (sp_start ... sp_stop), so that each recorded call carries
 * its own figures (a solve's iterations and residual):
 *
 *   sp_start(solve);
 *   ...
 *   sp_call_set_int("iterations", it);
 *   sp_call_set_real("residual", r);
 *   sp_stop(solve);
 *
 * Trace mode stores them beside the stamps, one value per call in the
 * order of start_times: rank<N>/regions/<name>/call_values/<key> (int64,
 * float64 or UTF-8 strings; a call without the key holds INT64_MIN, NaN or
 * ""), and call_values/<key> in the columnar layout (docs/values.md). They
 * go through the spill file, scope-profiler-merge and crash recovery as
 * the stamps do. Setting a key again in the same call replaces its value.
 * A key is 1..255 bytes (no NUL); at most 64 keys per region, past that
 * values of new keys are dropped, counted (SP_MISUSE_VALUES_LOST) and said
 * once. A call left out of the trace (sp_trace_pause, TRACE_MAX_MB) keeps
 * no values. With time_trace = 0 (counting only) values are ignored.
 * Returns 0; SP_EINVAL for a bad key (NULL, empty, longer than 255 bytes)
 * or a string value that is NULL, and when no call is open on the thread
 * (counted as SP_MISUSE_VALUE_NO_CALL, said once: the program goes on);
 * SP_ETOOMANY past 64 keys in a region; SP_ENOTSETUP without a session;
 * SP_ENOMEM. Thread-safe (each thread its own calls). Cost: about the
 * price of a start/stop pair or less for a key already seen in the region
 * (docs/performance.md); a program that never calls them pays nothing.
 */
SP_EXPORT int sp_call_set_int(const char *key, int64_t value);
/** sp_call_set_int() with a float64 value (NaN is stored as "unset"). */
SP_EXPORT int sp_call_set_real(const char *key, double value);
/** sp_call_set_int() with a UTF-8 string value (copied). */
SP_EXPORT int sp_call_set(const char *key, const char *value);
/* Internal to the bindings: key and string by address and length; type 1
 * string, 2 int64, 3 double (vlen 8), as sp__metadata_set_f. */
SP_EXPORT int sp__call_set_f(const char *key, size_t klen, int type, const void *val, size_t vlen);
/** 1 while no call starts in the trace (paused or truncated), else 0. */
SP_EXPORT int sp_trace_paused(void);

/**
 * Fills *out with region h's calls, total, shortest, longest and
 * exclusive time in this process in the current window, summed over its
 * threads. Cheap (no I/O, no MPI; a walk of the threads' call paths).
 * Returns 0, SP_EINVAL (bad h or out, or profile mode off) or SP_ENOTSETUP.
 */
SP_EXPORT int sp_region_stats(int h, sp_region_stats_t *out);

/* ===================================================================== */
/*  Regions: the hot path                                                */
/* ===================================================================== */

/**
 * Registers name (NUL-terminated) and returns its handle (>= 0); the same
 * name always gives the same handle within a session. Names registered
 * before the first sp_setup (or between sp_finalize and the next setup) are
 * kept for that session; sp_finalize and a repeated sp_setup forget all
 * handles. Returns SP_EINVAL for NULL, "" or a name holding a NUL byte
 * (through sp_region_n; counted as SP_MISUSE_BAD_NAME), SP_ENAMETOOLONG past
 * SP_NAME_MAX bytes, SP_ETOOMANY or SP_ENOMEM. Thread-safe; takes a lock:
 * call it once per region, not in the loop.
 */
SP_EXPORT int sp_region(const char *name);

/** As sp_region() for a name given by address and length (no NUL needed). */
SP_EXPORT int sp_region_n(const char *name, size_t len);

/**
 * As sp_region(), and records where in the source the region is: file and
 * line are written as the region's attributes source_file (string) and
 * source_lineno (int64), the reference tool's names. The first location
 * given for a region is kept. A location that is not a file name (NULL,
 * "", not UTF-8, longer than SP_PATH_MAX bytes) or a negative line is
 * reported and ignored: the handle is returned all the same. Returns what
 * sp_region() returns. Thread-safe; takes a lock: call it once per region
 * (SP_REGION_HERE keeps the handle in a static for you).
 */
SP_EXPORT int sp_region_at(const char *name, const char *file, int line);

/** sp_region_at(name, __FILE__, __LINE__), registered once per call site:
 *  an expression giving the handle. The name must be the same on every pass
 *  (later passes reuse the first handle, also after a new sp_setup: the
 *  handle is registered again when the session changed). */
#define SP_REGION_HERE(name)                                  \
  __extension__({                                             \
    static int sp__here_h_ = -1;                              \
    static unsigned sp__here_s_ = 0;                          \
    if (sp__here_h_ < 0 || sp__here_s_ != sp__session) {      \
      sp__here_s_ = sp__session;                              \
      sp__here_h_ = sp_region_at((name), __FILE__, __LINE__); \
    }                                                         \
    sp__here_h_;                                              \
  })

/* Internal to the Fortran module: sp_region_n() with a location (file of
 * flen bytes, or flen 0 for none). */
SP_EXPORT int sp__region_at_f(const char *name, size_t len, const char *file, size_t flen,
                              int line);

/**
 * Opens one call of region h on the calling thread. Calls nest and may
 * recurse to any depth. Cost: a clock read and a few stores (see the
 * benchmark in tests/bench). Misuse (invalid handle) is counted and
 * reported once; never fails loudly. Thread-safe, lock-free.
 */
SP_EXPORT void sp_start(int h);

/**
 * Closes the innermost open call on the calling thread, which must be of
 * region h. A stop without a start, or of a region that is not the
 * innermost open one, is counted and reported once and then ignored (if h
 * is open further out, the calls above it are dropped). Thread-safe, lock-free.
 */
SP_EXPORT void sp_stop(int h);

/**
 * sp_start() by name (registers it on first use). Lock-free after first use.
 * Cost: each thread caches the region of each name pointer, so a name
 * passed again costs a string compare more than sp_start(h); the compare,
 * not the pointer, decides (a buffer rewritten with another name is safe).
 */
SP_EXPORT void sp_start_name(const char *name);
/** sp_stop() by name; compares with the innermost open call's name first. */
SP_EXPORT void sp_stop_name(const char *name);
/** sp_start_name() for a name given by address and length (Fortran strings);
 *  a name holding a NUL byte is refused (counted, reported once). */
SP_EXPORT void sp_start_name_n(const char *name, size_t len);
/** sp_stop_name() for a name given by address and length. */
SP_EXPORT void sp_stop_name_n(const char *name, size_t len);

/* Nonzero while a session with profiling activated is running. */
SP_EXPORT extern volatile int sp__enabled;
/* Incremented by every sp_setup and sp_finalize: bindings that cache
 * handles compare it to notice that their handles are stale. */
SP_EXPORT extern volatile unsigned sp__session;
/* Nonzero when the running session keeps per call path statistics and no
 * stamps (profile mode alone): the automatic function regions then time
 * every call, since counted calls would be left out of the statistics. */
SP_EXPORT int sp__profile_only(void);

/* In C the macros shadow the functions (a function-like macro does not
 * expand inside itself) so that a disabled profiler costs one load and
 * branch, no call. (sp_start)(h) or a function pointer still reaches the
 * real function. C++ gets the same from bindings/cpp/scope_profiler.hpp;
 * define SP_NO_FAST_MACROS to turn the macros off. */
#if !defined(__cplusplus) && !defined(SP_NO_FAST_MACROS)
#define sp_start(h) (sp__enabled ? sp_start(h) : (void)0)
#define sp_stop(h) (sp__enabled ? sp_stop(h) : (void)0)
#define sp_start_name(n) (sp__enabled ? sp_start_name(n) : (void)0)
#define sp_stop_name(n) (sp__enabled ? sp_stop_name(n) : (void)0)
#endif

/*
 * SP_BLOCK("name") { ... } times the braces. The region is stopped whenever
 * control leaves the block normally: at the closing brace, and by `break` or
 * `continue` inside it (they end the block's hidden loop, not an enclosing
 * loop). `return`, `goto` out of the block and longjmp skip the stop: the
 * call stays open and is reported as unbalanced at sp_finalize. Use
 * SP_BLOCK_H(handle) for a pre-registered handle (no lookup).
 */
#define SP__CAT2(a, b) a##b
#define SP__CAT(a, b) SP__CAT2(a, b)
#define SP_BLOCK_H(handle)                                                                     \
  for (int SP__CAT(sp__h_, __LINE__) = (handle), SP__CAT(sp__once_, __LINE__) =                \
                                                     (sp_start(SP__CAT(sp__h_, __LINE__)), 1); \
       SP__CAT(sp__once_, __LINE__);                                                           \
       SP__CAT(sp__once_, __LINE__) = 0, sp_stop(SP__CAT(sp__h_, __LINE__)))                   \
    for (int SP__CAT(sp__in_, __LINE__) = 1; SP__CAT(sp__in_, __LINE__);                       \
         SP__CAT(sp__in_, __LINE__) = 0)
#define SP_BLOCK(name) SP_BLOCK_H(sp__block_handle(name))

/* Registers on the first pass; internal to SP_BLOCK. */
SP_EXPORT int sp__block_handle(const char *name);

/* Internal to the Fortran module: sp_start_name_n() and sp_stop_name_n()
 * for a Fortran string of len characters, its trailing blanks not part of
 * the name (cheaper here than len_trim). The start returns the region it
 * started, or -1 when the name was refused or no session runs (sp_scope
 * keeps it and stops by handle). */
SP_EXPORT int sp__start_name_f(const char *name, size_t len);
SP_EXPORT void sp__stop_name_f(const char *name, size_t len);

/* ===================================================================== */
/*  Advanced: diagnostics                                                */
/* ===================================================================== */

/** Kinds of misuse counted by the hot path. */
typedef enum sp_misuse {
  SP_MISUSE_STOP_WITHOUT_START = 0, /* stop with nothing open on the thread */
  SP_MISUSE_STOP_MISMATCH,          /* stop of a region not innermost open */
  SP_MISUSE_INVALID_HANDLE,         /* handle never returned by sp_region */
  SP_MISUSE_BAD_NAME,               /* NULL, empty or too long name */
  SP_MISUSE_UNBALANCED,             /* calls still open at sp_finalize */
  SP_MISUSE_NOT_ACTIVE,             /* start/stop/region before setup or after finalize */
  SP_MISUSE_REENTERED, /* a call from a signal handler that interrupted the library: dropped */
  SP_MISUSE_VALUE_NO_CALL, /* sp_call_set* with no call open on the thread */
  SP_MISUSE_VALUES_LOST,   /* values dropped: a 65th key in a region, no memory */
  SP_MISUSE_COUNT_
} sp_misuse_t;

/** How often misuse of this kind happened in the current (or last) session. */
SP_EXPORT int64_t sp_misuse_count(sp_misuse_t kind);

/** Levels of the log callback, as the library logs them. */
typedef enum sp_log_level {
  SP_LOG_ERROR = 0,   /**< the call or the session failed */
  SP_LOG_WARNING = 1, /**< misuse or a degraded result; the session goes on */
  SP_LOG_INFO = 2     /**< what was done (with SCOPE_PROFILER_VERBOSE) */
} sp_log_level_t;

/** Log callback: level an sp_log_level_t (0 = error, 1 = warning, 2 = info);
 * msg has no newline. */
typedef void (*sp_log_fn)(int level, const char *msg, void *user);

/**
 * Replaces the log function (NULL restores the default: stderr with the
 * prefix "scope-profiler: "). Each kind of message is logged once per session.
 */
SP_EXPORT void sp_log_set(sp_log_fn fn, void *user);

/** Name of the clock used for stamps in this session: "tsc" or "monotonic". */
SP_EXPORT const char *sp_clock_name(void);

/** Current time in the stamps' domain: CLOCK_MONOTONIC nanoseconds. */
SP_EXPORT int64_t sp_clock_now_ns(void);

/* ===================================================================== */
/*  Advanced: extensions (automatic regions, other front ends)           */
/* ===================================================================== */

/**
 * Runs fn(arg) at the start of every sp_finalize (on every rank, before
 * anything is written), for extensions that resolve names or add data late.
 * Hooks stay registered across sessions. A hook's own sp_setup or
 * sp_finalize is refused with SP_EBUSY (the running sp_finalize writes the
 * profile). Returns 0, SP_EINVAL (fn NULL) or SP_ETOOMANY (more than 16
 * hooks). Not thread-safe.
 */
SP_EXPORT int sp_finalize_hook_add(void (*fn)(void *arg), void *arg);

/**
 * Renames region h (e.g. an address placeholder resolved to a symbol name
 * at finalize). Fails with SP_EINVAL if name is taken by another region.
 * Must not race with sp_start_name/sp_stop_name; meant for finalize hooks.
 */
SP_EXPORT int sp_region_rename(int h, const char *name);

/**
 * Counts n calls of region h on the calling thread without stamps (for
 * calls an extension chose not to trace); they add to num_calls. Profile
 * mode (aggregate = 1) keeps calls with a duration and a call path only:
 * these calls are not in the aggregates nor in sp_region_stats (with
 * time_trace = 1 they are in the trace's num_calls; without, they are left
 * out, said once).
 */
SP_EXPORT void sp_region_add_calls(int h, int64_t n);

/* ===================================================================== */
/*  Advanced: recovery after a run died                                  */
/* ===================================================================== */

/**
 * Opt-in: when signum arrives (e.g. SIGTERM, sent by batch schedulers
 * before SIGKILL), every thread appends its recorded events to the spill
 * file at its next profiler call; then, if signum's action was the default,
 * the signal is raised again and the process ends as it would have (after
 * at most 3 s for threads that make no profiler call). A handler installed
 * before is still called, with its own flags (SA_RESTART, SA_RESETHAND...)
 * and sa_mask; after a signal it handled, the next one is flushed again.
 * Nothing but a flag and a pipe write happens in the handler. Also set by
 * SCOPE_PROFILER_FLUSH_SIGNALS=TERM,USR1,... at setup. Needs flush_to_disk.
 * Returns 0 or SP_EINVAL (also for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
 * SIGSYS and SIGABRT: a crash must end where it happens) / SP_EIO /
 * SP_ENOMEM.
 */
SP_EXPORT int sp_flush_on_signal(int signum);

/* ===================================================================== */
/*  Run metadata                                                         */
/* ===================================================================== */

/**
 * Stores key = value as an attribute of the profile's /metadata group
 * (the run's parameters: problem size, work per rank, input file...), so
 * that the postprocessor can use them (--x-field, --work-per-rank, the
 * headers of --summary and --tree, the HTML report). Values are strings
 * (UTF-8), int64 (sp_metadata_set_int) or float64 (sp_metadata_set_real).
 * Setting a key again replaces its value. Kept in the spill file as soon as
 * one exists, so scope-profiler-merge recovers it after a crash.
 * Under MPI each rank sets its own: /metadata holds the lowest rank's value
 * of each key, and rank<N>/metadata the keys whose value differs on rank N
 * (profile mode's aggregate file: rank 0's keys).
 *
 * Rules: key 1..255 bytes of UTF-8 without '/' (and without NUL), not one
 * of the keys the library writes itself (mpi_size, hostname, timestamp,
 * library_version, clock, clock_source, recovered_from_spill, omp_threads,
 * omp_num_threads, total_cores, time_trace, events_lost,
 * scope_profiler_version); a string value at most 65535 bytes of UTF-8
 * without NUL; a real finite; at most 256 keys a session.
 * Returns 0, SP_EINVAL (a rule broken), SP_ENOTSETUP (before sp_setup or
 * after sp_finalize), SP_ETOOMANY (a 257th key) or SP_ENOMEM; each refusal
 * is said in a scope-profiler: message and changes nothing. Thread-safe;
 * takes a lock (not for the hot path).
 */
SP_EXPORT int sp_metadata_set(const char *key, const char *value);
/** sp_metadata_set() with an int64 value. */
SP_EXPORT int sp_metadata_set_int(const char *key, int64_t value);
/** sp_metadata_set() with a float64 value (finite). */
SP_EXPORT int sp_metadata_set_real(const char *key, double value);
/** sp_metadata_set() for a key and a string given by address and length
 *  (Fortran and Python strings; a NUL byte in either is refused). */
SP_EXPORT int sp_metadata_set_n(const char *key, size_t key_len, const char *value,
                                size_t value_len);
/* Internal to the bindings: type 1 string, 2 int64, 3 double (vlen 8). */
SP_EXPORT int sp__metadata_set_f(const char *key, size_t klen, int type, const void *val,
                                 size_t vlen);

/**
 * Rebuilds the documented layout from spill files (inputs: spill files or
 * directories holding *.spill files) into out_path, serially and without
 * MPI. Each file is one rank. Files of several runs (runs killed writing
 * one path: a rank with two files) give one output per run: the latest
 * run's (by the first flush's time, then the pid) at out_path, the k-th
 * earlier one's at "<stem>.earlier<k><ext>" beside it (said on stderr).
 * A torn last record (the run died while writing it) is skipped; everything
 * before it is recovered. Inputs are only read, never changed or removed. A
 * damaged record or file is skipped and named on stderr; ranks without a
 * readable file are written as empty groups with rank<N>@missing = 1. The
 * file is written under a unique temporary name and renamed when complete.
 * Returns 0, SP_EPARTIAL (out_path written, but some ranks or records could
 * not be recovered), SP_ESPILL (no readable spill file: nothing written),
 * SP_EINVAL (also: out_path is one of the inputs), SP_EPATH, SP_EIO,
 * SP_EHDF5 or SP_ENOMEM.
 * `scope-profiler-merge` and `scope-profiler-pproc merge` call this.
 */
SP_EXPORT int sp_spill_merge(const char *const *inputs, int ninputs, const char *out_path);

/** sp_spill_merge2 flag: replace a regular file at out_path. */
#define SP_MERGE_REPLACE 1u

/**
 * sp_spill_merge with flags (0 or SP_MERGE_REPLACE); sp_spill_merge is
 * flags = SP_MERGE_REPLACE. Without SP_MERGE_REPLACE the result is
 * published only where no file is (rename with RENAME_NOREPLACE, or link):
 * when another writer put a file at out_path meanwhile, that file is left
 * as it is, the result is kept as <out_path>.<host>.<pid>.<random>.h5
 * (named on stderr) and SP_EPATH is returned. A FIFO, device, socket or
 * directory at out_path is never replaced: SP_EINVAL before any work (or
 * SP_EPATH with the result kept aside, when one appears meanwhile).
 */
SP_EXPORT int sp_spill_merge2(const char *const *inputs, int ninputs, const char *out_path,
                              unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_PROFILER_H */
