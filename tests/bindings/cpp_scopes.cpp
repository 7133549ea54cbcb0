// cpp_scopes.cpp - C++ binding cases; each writes a profile that
// check_profile.py (h5py) then checks.
//
// Usage: cpp_scopes <case> <output.h5>
// Exit status 0 when the in-process assertions hold.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifdef SP_TEST_WITH_MPI
#include <mpi.h>
#endif

#include <scope_profiler.hpp>

namespace {

int failures = 0;

#define CHECK_EQ(a, b)                                                                           \
  do {                                                                                           \
    const long long check_a_ = static_cast<long long>(a);                                        \
    const long long check_b_ = static_cast<long long>(b);                                        \
    if (check_a_ != check_b_) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
                   check_a_, check_b_);                                                          \
      ++failures;                                                                                \
    }                                                                                            \
  } while (0)

sp::Config config_for(const char *path) {
  sp::Config cfg;
  cfg.file_path = path;
  return cfg;
}

long long misuse_total() {
  long long n = 0;
  for (int k = 0; k < SP_MISUSE_COUNT_; ++k) n += sp_misuse_count(static_cast<sp_misuse_t>(k));
  return n;
}

// outer x3 { middle x2 { inner x1 } } via SP_SCOPE, SP_FUNCTION and Scope.
void inner_function() { SP_FUNCTION(); }

int case_nested(const char *path) {
  sp::Session session(config_for(path));
  CHECK_EQ(session.status(), 0);
  static const sp::Region outer("outer");
  for (int i = 0; i < 3; ++i) {
    sp::Scope s(outer);
    for (int j = 0; j < 2; ++j) {
      SP_SCOPE("middle");
      inner_function();
    }
  }
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(session.finalize(), 0);
  return failures;
}

// An exception thrown through two scopes must close both; the catch
// site's own scope keeps nesting correctly afterwards.
void thrower(int depth) {
  SP_SCOPE("throw_inner");
  if (depth == 0) throw std::runtime_error("through the scopes");
  thrower(depth - 1);
}

int case_exception(const char *path) {
  sp::Session session(config_for(path));
  for (int i = 0; i < 4; ++i) {
    SP_SCOPE("catcher");
    try {
      SP_SCOPE("throw_outer");
      thrower(2); // three nested calls of throw_inner per try
    } catch (const std::runtime_error &) {
      SP_SCOPE("handler");
    }
  }
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(session.finalize(), 0);
  return failures;
}

// Four threads share one static Region through SP_SCOPE. Each waits for
// all the others before exiting: the core gives a new thread the record
// (and thread id) of an exited one, and the check wants four ids.
std::atomic<int> threads_done{0};

void worker(int calls) {
  for (int i = 0; i < calls; ++i) {
    SP_SCOPE("thread_work");
    SP_SCOPE("thread_inner");
  }
  threads_done.fetch_add(1);
  while (threads_done.load() < 4) std::this_thread::yield();
}

int case_threads(const char *path) {
  sp::Session session(config_for(path));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(worker, 100 * (t + 1));
  for (auto &th : threads) th.join();
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(session.finalize(), 0);
  return failures;
}

// Regions survive sessions: one made before any setup records once a
// session runs, and after a second setup (which discards all handles) a
// Region registers again. In session 1 "early" gets a handle >= 1; in
// session 2 it is used first and must get handle 0 (its stale handle
// would be an invalid handle there).
int case_resetup(const char *path) {
  static const sp::Region before("before_setup");
  { sp::Scope s(before); } // no session: a no-op, no misuse
  CHECK_EQ(sp::setup(config_for(path)), 0);
  const sp::Region filler("filler_first_session");
  static const sp::Region early("early");
  CHECK_EQ(early.handle(), filler.handle() + 1);
  { sp::Scope s(early); }
  CHECK_EQ(sp::setup(config_for(path)), 0); // discards the first session
  for (int i = 0; i < 5; ++i) sp::Scope s(early);
  CHECK_EQ(early.handle(), 0);
  for (int i = 0; i < 2; ++i) sp::Scope s(before);
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(sp::finalize(), 0);
  return failures;
}

// A C (or Fortran) part of the program calls sp_setup again: the C++
// Region's handle from the first session is stale. Used after that setup it
// must register anew (handle 1), not record into "c_first", which the C part
// registered first in the new session and so holds handle 0.
int case_c_resetup(const char *path) {
  CHECK_EQ(sp::setup(config_for(path)), 0);
  static const sp::Region mine("cpp_region");
  { sp::Scope s(mine); }
  CHECK_EQ(mine.handle(), 0);
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  CHECK_EQ(::sp_setup(&c), 0); // discards the first session
  const int c_first = ::sp_region("c_first");
  CHECK_EQ(c_first, 0);
  for (int i = 0; i < 3; ++i) sp::Scope s(mine);
  CHECK_EQ(mine.handle(), 1);
  ::sp_start(c_first);
  ::sp_stop(c_first);
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(::sp_finalize(), 0);
  return failures;
}

// Profiling off: scopes and the session cost nothing and record nothing.
// Config::layout reaches sp_config: the file is in the columnar layout
// (check_columnar.py reads it).
int case_columnar(const char *path) {
  sp::Config cfg = config_for(path);
  cfg.layout = SP_LAYOUT_COLUMNAR;
  sp::Session session(cfg);
  for (int i = 0; i < 3; ++i) {
    SP_SCOPE("outer");
    for (int j = 0; j < 2; ++j) {
      SP_SCOPE("inner");
    }
  }
  CHECK_EQ(session.finalize(), 0);
  return failures;
}

int case_disabled(const char *path) {
  sp::Config cfg = config_for(path);
  cfg.profiling_activated = false;
  sp::Session session(cfg);
  CHECK_EQ(sp::is_active(), 0);
  for (int i = 0; i < 10; ++i) {
    SP_SCOPE("never");
  }
  CHECK_EQ(session.finalize(), 0);
  return failures;
}

// Runtime names (NamedScope), names needing encoding, and early stop().
int case_names(const char *path) {
  sp::Session session(config_for(path));
  const std::string names[] = {"a/b", "100%", ".", "ünïcode name"};
  for (const auto &n : names) {
    sp::NamedScope s(n);
  }
  static const sp::Region early_stop("early_stop");
  {
    sp::Scope s(early_stop);
    s.stop();
    SP_SCOPE("after_stop"); // not nested in early_stop
  }
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(session.finalize(), 0);
  return failures;
}

// With MPI: every rank records, the Session's finalize is collective.
int case_mpi(const char *path) {
#ifdef SP_TEST_WITH_MPI
  MPI_Init(nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    sp::Session session(config_for(path));
    for (int i = 0; i <= rank; ++i) {
      SP_SCOPE("per_rank");
    }
    CHECK_EQ(session.finalize(), 0);
  }
  MPI_Finalize();
  return failures;
#else
  return case_nested(path);
#endif
}

// Profile mode: sp::region_stats and Region::stats, sp::report mid-run,
// sp::reset; the files are checked by tests/profile/check_counts.py.
int case_profile(const char *path) {
  sp::Config cfg = config_for(path);
  cfg.time_trace = false;
  cfg.aggregate = true;
  const std::string mid = std::string(path) + ".mid.h5";
  std::remove(mid.c_str());
  static sp::Region outer("outer");
  static sp::Region inner("inner");
  {
    sp::Session session(cfg);
    CHECK_EQ(session.status(), 0);
    for (int i = 0; i < 6; ++i) {
      {
        sp::Scope o(outer);
        for (int k = 0; k < 4; ++k) sp::Scope s(inner);
      }
      if (i == 1) {
        sp_region_stats_t st{};
        CHECK_EQ(inner.stats(st), 0);
        CHECK_EQ(st.calls, 8);
        CHECK_EQ(sp::region_stats(outer.handle(), st), 0);
        CHECK_EQ(st.calls, 2);
        CHECK_EQ(st.exclusive_ns < st.total_ns, 1);
        CHECK_EQ(sp::report(mid), 0);
        CHECK_EQ(sp::reset(), 0);
      }
    }
    sp_region_stats_t st{};
    CHECK_EQ(inner.stats(st), 0);
    CHECK_EQ(st.calls, 16);
    CHECK_EQ(session.finalize(), 0);
  }
  return failures;
}

// Trace windows: test_trace_window.c's case window_both through
// sp::trace_pause / sp::trace_resume and sp::Config::trace_max_mb (0);
// tests/core/check_trace_window.py reads the files.
int case_trace_window(const char *path) {
  sp::Config cfg = config_for(path);
  cfg.aggregate = true;
  cfg.buffer_limit = 1000;
  CHECK_EQ(cfg.trace_max_mb, 0);
  CHECK_EQ(sp::setup(cfg), 0);
  const sp::Region step("step"), work("work"), lng("long"), span("span");
  CHECK_EQ(sp::trace_pause(), 0);
  for (int s = 0; s < 10000; ++s) {
    if (s == 100) CHECK_EQ(sp::trace_resume(), 0);
    if (s == 111) CHECK_EQ(sp::trace_pause(), 0);
    if (s == 95) ::sp_start(span.handle());
    if (s == 105) ::sp_start(lng.handle());
    {
      sp::Scope st(step);
      for (int w = 0; w < 2; ++w) sp::Scope wk(work);
    }
    if (s == 102) ::sp_stop(span.handle());
    if (s == 120) ::sp_stop(lng.handle());
  }
  CHECK_EQ(misuse_total(), 0);
  CHECK_EQ(sp::finalize(), 0);
  return failures;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <case> <output.h5>\n", argv[0]);
    return 2;
  }
  const std::string which = argv[1];
  const char *path = argv[2];
  std::remove(path); // a stale file must not pass the h5py check
  if (which == "nested") return case_nested(path);
  if (which == "exception") return case_exception(path);
  if (which == "threads") return case_threads(path);
  if (which == "resetup") return case_resetup(path);
  if (which == "disabled") return case_disabled(path);
  if (which == "columnar") return case_columnar(path);
  if (which == "c_resetup") return case_c_resetup(path);
  if (which == "names") return case_names(path);
  if (which == "mpi") return case_mpi(path);
  if (which == "profile") return case_profile(path);
  if (which == "trace_window") return case_trace_window(path);
  std::fprintf(stderr, "%s: unknown case '%s'\n", argv[0], argv[1]);
  return 2;
}
