/*
 * scope_profiler.hpp - C++17 RAII interface of scope-profiler (header-only).
 *
 * A thin layer over the C core (scope_profiler.h): the same session, the
 * same regions, the same file. C++ regions and the C, Fortran or Python
 * regions of the same process land in one profile on one timeline.
 *
 *     #include <scope_profiler.hpp>
 *
 *     void step() {
 *       SP_FUNCTION();                    // region "step" for the whole body
 *       { SP_SCOPE("halo"); exchange(); } // region "halo" for the braces
 *     }
 *
 *     int main() {
 *       sp::Session session;              // sp_setup now, sp_finalize at exit
 *       for (int i = 0; i < 10; ++i) step();
 *     }
 *
 * Cost: constructing and destroying an sp::Scope is the C handle path
 * (sp_start/sp_stop) plus two relaxed loads; no allocation, no lock.
 * A scope is closed by its destructor, so an exception, a return or a
 * break leaves no call open.
 *
 * Threads: any thread may open scopes; setup and finalize follow the rules
 * of sp_setup()/sp_finalize() (one thread, no other thread inside a
 * profiler call).
 *
 * Errors: nothing here throws except std::bad_alloc from the constructors
 * of Region and Config, which copy a name. Setup and finalize return the
 * C error codes (0 or SP_E*, see sp::strerror); hot-path misuse is counted
 * and reported once by the core.
 */
#ifndef SCOPE_PROFILER_HPP
#define SCOPE_PROFILER_HPP

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "scope_profiler.h"

#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "scope_profiler.hpp needs C++17"
#endif

namespace sp {

namespace detail {

/* The core's session number plus one: every sp_setup and sp_finalize,
 * from C++, C, Fortran or Python, changes it, so that a Region registered
 * in an earlier session registers again on next use (sp_setup discards all
 * handles). Plus one so that it is never 0, the state of a Region before
 * its first successful registration. */
inline unsigned session_id() noexcept { return sp__session + 1u; }

} // namespace detail

/* ===================================================================== */
/*  Version and errors                                                   */
/* ===================================================================== */

/** SP_VERSION_NUMBER of the library actually linked. */
inline unsigned version_number() noexcept { return ::sp_version_number(); }

/** "MAJOR.MINOR.PATCH" of the library actually linked; a static string. */
inline const char *version_string() noexcept { return ::sp_version_string(); }

/** Text for an SP_E* code, "success" for 0; never NULL. */
inline const char *strerror(int err) noexcept { return ::sp_strerror(err); }

/* ===================================================================== */
/*  Configuration and lifecycle                                          */
/* ===================================================================== */

/**
 * The options of sp_config (and of the reference ProfileManager.setup()).
 * The default constructor takes the library's defaults from
 * sp_config_init(), so they are never duplicated here.
 */
struct Config {
  bool profiling_activated;  /**< master switch; false makes every scope a no-op */
  bool use_likwid;           /**< also call LIKWID markers around regions */
  bool time_trace;           /**< record start/end stamps; false = call counts only */
  bool flush_to_disk;        /**< append full buffers to spill files */
  std::int64_t buffer_limit; /**< events per thread and region before a flush */
  std::string file_path;     /**< merged output file */
  bool aggregate;            /**< profile mode: statistics per call path (see sp::report) */
  int sample_ms;             /**< RSS and CPU time every sample_ms ms into rank<N>/samples; 0 off */
  bool profile_mpi;          /**< MPI calls as regions with bytes and peers (docs/settings.md) */
  int layout;                /**< the trace file's layout, an SP_LAYOUT_* (docs/settings.md) */

  int reduce; /**< profile mode reduced across ranks: 1 on, 0 off, -1 auto (from 1,024 ranks) */
  bool nvtx;  /**< regions also as NVTX push/pop in the domain "scope-profiler" (docs/gpu.md) */
  int trace_max_mb; /**< the trace stops growing past this many MB per process; 0 = no cap */
  int openmp; /**< OpenMP constructs as regions through OMPT, an SP_OPENMP_* (docs/openmp.md) */
  bool profile_io; /**< POSIX, stdio and MPI-IO calls as regions, per-file records (docs/io.md) */

  Config() {
    ::sp_config c;
    ::sp_config_init(&c);
    profiling_activated = c.profiling_activated != 0;
    use_likwid = c.use_likwid != 0;
    time_trace = c.time_trace != 0;
    flush_to_disk = c.flush_to_disk != 0;
    buffer_limit = c.buffer_limit;
    file_path = c.file_path != nullptr ? c.file_path : "";
    aggregate = c.aggregate != 0;
    sample_ms = c.sample_ms;
    profile_mpi = c.profile_mpi != 0;
    layout = c.layout;

    reduce = c.reduce;
    nvtx = c.nvtx != 0;
    trace_max_mb = c.trace_max_mb;
    openmp = c.openmp;
    profile_io = c.profile_io != 0;
  }
};

/**
 * Starts a session with cfg (sp_setup(); environment variables still
 * override). Returns 0 or an SP_E* code (see sp_setup). Regions registered
 * in an earlier session re-register on their next use, also after an
 * sp_setup called from C, Fortran or Python.
 */
inline int setup(const Config &cfg = Config()) noexcept {
  ::sp_config c;
  ::sp_config_init(&c); /* fields added to sp_config later keep their defaults */
  c.profiling_activated = cfg.profiling_activated ? 1 : 0;
  c.use_likwid = cfg.use_likwid ? 1 : 0;
  c.time_trace = cfg.time_trace ? 1 : 0;
  c.flush_to_disk = cfg.flush_to_disk ? 1 : 0;
  c.buffer_limit = cfg.buffer_limit;
  c.file_path = cfg.file_path.empty() ? nullptr : cfg.file_path.c_str();
  c.aggregate = cfg.aggregate ? 1 : 0;
  c.sample_ms = cfg.sample_ms;
  c.profile_mpi = cfg.profile_mpi ? 1 : 0;
  c.layout = cfg.layout;

  c.reduce = cfg.reduce;
  c.nvtx = cfg.nvtx ? 1 : 0;
  c.trace_max_mb = cfg.trace_max_mb;
  c.openmp = cfg.openmp;
  c.profile_io = cfg.profile_io ? 1 : 0;
  return ::sp_setup(&c);
}

/** Profile mode: writes the aggregates so far to path (sp_report(); with
 *  MPI collective); recording goes on. 0 or an SP_E* code. */
inline int report(const std::string &path) noexcept { return ::sp_report(path.c_str()); }

/** Profile mode: a new window, the aggregates start from zero (sp_reset()). */
inline int reset() noexcept { return ::sp_reset(); }

/** Trace windows: no call starts in the trace until trace_resume()
 *  (sp_trace_pause()); calls open now are kept whole, profile mode counts on. */
inline int trace_pause() noexcept { return ::sp_trace_pause(); }
/** Ends a pause of the trace (sp_trace_resume()). */
inline int trace_resume() noexcept { return ::sp_trace_resume(); }

/** Profile mode: region h's figures in this process so far
 *  (sp_region_stats()); 0 or an SP_E* code. */
inline int region_stats(int h, ::sp_region_stats_t &out) noexcept {
  return ::sp_region_stats(h, &out);
}

/**
 * Run metadata (sp_metadata_set()): key = value in the profile's /metadata
 * group, as a string, an int64 (any integer type) or a float64 (any
 * floating type). 0 or an SP_E* code; a refusal is said on stderr.
 */
inline int metadata_set(std::string_view key, std::string_view value) noexcept {
  return ::sp_metadata_set_n(key.data(), key.size(), value.data(), value.size());
}
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
inline int metadata_set(std::string_view key, T value) noexcept {
  const std::int64_t v = static_cast<std::int64_t>(value);
  return ::sp__metadata_set_f(key.data(), key.size(), 2, &v, sizeof v);
}
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
inline int metadata_set(std::string_view key, T value) noexcept {
  const double v = static_cast<double>(value);
  return ::sp__metadata_set_f(key.data(), key.size(), 3, &v, sizeof v);
}

/**
 * Values per call (sp_call_set_int(), docs/values.md): key = value on the
 * innermost call open on this thread, as an int64 (any integer type), a
 * float64 (any floating type) or a string. 0 or an SP_E* code (SP_EINVAL
 * with no call open, said once). A C-string key takes the C fast path
 * (a cache by pointer); a std::string_view key or value is passed by
 * address and length (a lock per value: fine outside the hottest loops).
 */
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
inline int call_set(const char *key, T value) noexcept {
  return ::sp_call_set_int(key, static_cast<std::int64_t>(value));
}
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
inline int call_set(const char *key, T value) noexcept {
  return ::sp_call_set_real(key, static_cast<double>(value));
}
inline int call_set(const char *key, const char *value) noexcept {
  return ::sp_call_set(key, value);
}
inline int call_set(std::string_view key, std::string_view value) noexcept {
  return ::sp__call_set_f(key.data(), key.size(), 1, value.data(), value.size());
}
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
inline int call_set(std::string_view key, T value) noexcept {
  const std::int64_t v = static_cast<std::int64_t>(value);
  return ::sp__call_set_f(key.data(), key.size(), 2, &v, sizeof v);
}
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
inline int call_set(std::string_view key, T value) noexcept {
  const double v = static_cast<double>(value);
  return ::sp__call_set_f(key.data(), key.size(), 3, &v, sizeof v);
}

/** Writes the profile and ends the session (sp_finalize()); 0 or SP_E*. */
inline int finalize() noexcept { return ::sp_finalize(); }

/** True between setup and finalize with profiling activated. */
inline bool is_active() noexcept { return ::sp_is_active() != 0; }

/**
 * RAII session: setup in the constructor, finalize in the destructor.
 * With MPI, let it end before MPI_Finalize (finalize is collective).
 */
class Session {
 public:
  Session() : Session(Config()) {}
  explicit Session(const Config &cfg) noexcept : status_(setup(cfg)) {}
  ~Session() { (void)finalize(); }

  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /** Result of the setup: 0 or an SP_E* code. */
  int status() const noexcept { return status_; }

  /** Finalizes now to see the result; the destructor then does nothing. */
  int finalize() noexcept {
    if (finalized_) return 0;
    finalized_ = true;
    return ::sp_finalize();
  }

 private:
  int status_;
  bool finalized_ = false;
};

/* ===================================================================== */
/*  Regions and scopes: the hot path                                     */
/* ===================================================================== */

/**
 * A region registered once: keep it (static or long-lived) and open it
 * many times with sp::Scope. It may be created before setup: it then
 * registers on its first use in a session, and again in each new session
 * (sp_setup from C++, C, Fortran or Python). Thread-safe; copying is not allowed (keep a
 * reference).
 */
class Region {
 public:
  /** Copies name (any text; see scope_profiler.h for the link name). */
  explicit Region(std::string_view name) : name_(name) { (void)handle(); }
  /** With its place in the source (sp_region_at(): the region's
   *  source_file and source_lineno attributes); SP_SCOPE and SP_FUNCTION
   *  pass __FILE__ and __LINE__. */
  Region(std::string_view name, std::string_view file, int line)
      : name_(name), file_(file), line_(line) {
    (void)handle();
  }

  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;

  /**
   * The C handle for this session (>= 0), or a negative SP_E* code
   * (SP_ENOTSETUP before setup, SP_EINVAL for "", SP_ENAMETOOLONG).
   * After registration it costs two relaxed loads.
   */
  int handle() const noexcept {
    const std::uint64_t s = state_.load(std::memory_order_relaxed);
    const unsigned session = detail::session_id();
    if ((s >> 32) == session) return static_cast<int>(static_cast<std::uint32_t>(s));
    return refresh(session);
  }

  /** The name as given. */
  const std::string &name() const noexcept { return name_; }

  /** Opens one call (as sp_start); prefer sp::Scope, which cannot leak it. */
  void start() const noexcept {
    if (sp__enabled) {
      const int h = handle();
      if (h >= 0) ::sp_start(h);
    }
  }

  /** Profile mode: this region's figures in this process so far
   *  (sp_region_stats()); 0 or an SP_E* code. */
  int stats(::sp_region_stats_t &out) const noexcept {
    const int h = handle();
    return h < 0 ? h : ::sp_region_stats(h, &out);
  }

  /** Closes the innermost call, which must be of this region (as sp_stop). */
  void stop() const noexcept {
    if (sp__enabled) {
      const int h = handle();
      if (h >= 0) ::sp_stop(h);
    }
  }

 private:
  /* Slow path, once per session: registration takes the core's lock.
   * Two threads may race here; both get the same handle and store the
   * same state. SP_ENOTSETUP is not kept so that the next use retries;
   * other errors are kept so a bad name costs no lock on every use. */
  int refresh(unsigned session) const noexcept {
    const int h = file_.empty() ? ::sp_region_n(name_.data(), name_.size())
                                : ::sp__region_at_f(name_.data(), name_.size(), file_.data(),
                                                    file_.size(), line_);
    if (h != SP_ENOTSETUP) {
      state_.store((static_cast<std::uint64_t>(session) << 32) | static_cast<std::uint32_t>(h),
                   std::memory_order_relaxed);
    }
    return h;
  }

  std::string name_;
  std::string file_; /* empty: no location */
  int line_ = 0;
  /* Session id in the high 32 bits, handle in the low 32 bits, in one word
   * so that a reader never pairs a handle with the wrong session. */
  mutable std::atomic<std::uint64_t> state_{0};
};

/**
 * Times its own lifetime: starts region in the constructor, stops it in
 * the destructor (also during stack unwinding). No allocation. A scope
 * opened while profiling is off stays a no-op even if a session starts
 * before it ends.
 */
class Scope {
 public:
  explicit Scope(const Region &region) noexcept : h_(sp__enabled ? region.handle() : -1) {
    if (h_ >= 0) ::sp_start(h_);
  }

  /** For a handle from sp_region() of the current session. */
  explicit Scope(int handle) noexcept : h_(sp__enabled ? handle : -1) {
    if (h_ >= 0) ::sp_start(h_);
  }

  ~Scope() { stop(); }

  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

  /** Ends the call before the scope ends; the destructor then does nothing. */
  void stop() noexcept {
    if (h_ >= 0 && sp__enabled) ::sp_stop(h_);
    h_ = -1;
  }

 private:
  int h_; /* handle of the open call, -1 when nothing was started */
};

/**
 * A scope for a name known only at run time (looked up on each use, by
 * sp_start_name_n: lock-free after the first use, but a hash lookup where
 * sp::Scope has none). The characters must outlive the scope.
 */
class NamedScope {
 public:
  explicit NamedScope(std::string_view name) noexcept : name_(name), on_(sp__enabled != 0) {
    if (on_) ::sp_start_name_n(name_.data(), name_.size());
  }

  ~NamedScope() {
    if (on_ && sp__enabled) ::sp_stop_name_n(name_.data(), name_.size());
  }

  NamedScope(const NamedScope &) = delete;
  NamedScope &operator=(const NamedScope &) = delete;

 private:
  std::string_view name_;
  bool on_;
};

} // namespace sp

/*
 * SP_SCOPE("name") times the rest of the enclosing block; the name must be
 * the same every time this line runs (it is registered once, in a static
 * sp::Region). SP_FUNCTION() does the same with the function's name
 * (__func__, so overloads and methods of the same name share a region).
 * Both record where they are (__FILE__, __LINE__) as the region's
 * source_file and source_lineno; a region used at several places keeps the
 * first place registered.
 */
#define SP__SCOPE_ID(name, id)                                                  \
  static const ::sp::Region SP__CAT(sp__region_, id){name, __FILE__, __LINE__}; \
  const ::sp::Scope SP__CAT(sp__scope_, id) { SP__CAT(sp__region_, id) }
#define SP_SCOPE(name) SP__SCOPE_ID(name, __COUNTER__)
#define SP_FUNCTION() SP_SCOPE(__func__)

#endif /* SCOPE_PROFILER_HPP */
