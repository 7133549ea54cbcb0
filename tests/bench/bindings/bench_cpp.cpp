// bench_cpp.cpp - ns per start/stop pair: sp::Scope and SP_SCOPE against
// the C handle path, in the same run and session.
//
// Usage: sp_bench_bindings_cpp [pairs per measurement] [output.h5]
// Each figure is the best of 5 repetitions. Nothing is asserted.
//
// Second part, profile mode (issue 33): sp::Scope, SP_SCOPE and the C
// handle path in a trace session and in a profile-mode session
// (aggregate = true, time_trace = false), one of each per repetition,
// each against the floor of bench_overhead (two rdtsc and two stores)
// measured next to it; best of 31. Target: profile mode <= floor + 10 ns.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <scope_profiler.hpp>

extern "C" double sp_bench_c_pairs(int h, long n);
extern "C" double sp_bench_c_empty(long n);
extern "C" double sp_bench_c_floor(long n);

namespace {

volatile long sink;

template <class F>
double ns_per_iter(long n, F &&body) {
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) body(i);
  const auto t1 = std::chrono::steady_clock::now();
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) /
         static_cast<double>(n);
}

template <class F>
double best_of(int reps, F &&measure) {
  double best = measure();
  for (int r = 1; r < reps; ++r) best = std::min(best, measure());
  return best;
}

// One mode's figures: each case's best and the best floor next to it.
struct ModeFigures {
  double c = 1e30, c_floor = 1e30;
  double scope = 1e30, scope_floor = 1e30;
  double macro = 1e30, macro_floor = 1e30;
};

// One repetition of every case in a new session of this mode.
int profile_rep(long n, bool aggregate, const std::string &path, ModeFigures &f) {
  sp::Config cfg;
  cfg.file_path = path;
  cfg.time_trace = !aggregate;
  cfg.aggregate = aggregate;
  sp::Session session(cfg);
  if (session.status() != 0) return session.status();
  const sp::Region region("cpp_pair");
  const int h = region.handle();
  (void)sp_bench_c_pairs(h, n); // warm-up: buffers grown, call path made
  f.c_floor = std::min(f.c_floor, sp_bench_c_floor(n));
  f.c = std::min(f.c, sp_bench_c_pairs(h, n));
  f.scope_floor = std::min(f.scope_floor, sp_bench_c_floor(n));
  f.scope = std::min(f.scope, ns_per_iter(n, [&](long i) {
                       sp::Scope s(region);
                       sink = i;
                     }));
  f.macro_floor = std::min(f.macro_floor, sp_bench_c_floor(n));
  f.macro = std::min(f.macro, ns_per_iter(n, [&](long i) {
                       SP_SCOPE("cpp_pair");
                       sink = i;
                     }));
  return session.finalize();
}

void profile_row(const char *mode, const char *label, double ns, double fl) {
  std::printf("  %-22s %-22s %8.2f %8.2f %8.2f %+8.2f\n", mode, label, ns, fl, ns / fl, ns - fl);
}

int profile_part(long n, const std::string &path) {
  const int reps = 31;
  ModeFigures trace, prof;
  for (int r = 0; r < reps; ++r) {
    int rc = profile_rep(n, false, path, trace);
    if (rc == 0) rc = profile_rep(n, true, path, prof);
    if (rc != 0) {
      std::fprintf(stderr, "profile part: %s\n", sp::strerror(rc));
      return 1;
    }
  }
  std::remove(path.c_str());
  std::printf("\nprofile mode from C++: best of %d x %ld pairs, each next to the floor "
              "(2 rdtsc + 2 stores, as bench_overhead)\n",
              reps, n);
  std::printf("  %-22s %-22s %8s %8s %8s %8s\n", "mode", "case", "ns/pair", "floor", "x floor",
              "- floor");
  const ModeFigures *figs[2] = {&trace, &prof};
  const char *modes[2] = {"trace", "profile (aggregate)"};
  for (int m = 0; m < 2; ++m) {
    profile_row(modes[m], "C handle", figs[m]->c, figs[m]->c_floor);
    profile_row(modes[m], "sp::Scope(region)", figs[m]->scope, figs[m]->scope_floor);
    profile_row(modes[m], "SP_SCOPE(\"name\")", figs[m]->macro, figs[m]->macro_floor);
  }
  const double worst = std::max(prof.scope - prof.scope_floor, prof.macro - prof.macro_floor);
  std::printf("  target profile mode <= floor + 10 ns/pair: sp::Scope %+.2f, SP_SCOPE %+.2f ns/pair, "
              "%s\n",
              prof.scope - prof.scope_floor, prof.macro - prof.macro_floor,
              worst <= 10 ? "met" : "not met");
  std::printf("  profile mode - trace mode: sp::Scope %+.2f ns/pair; - C handle in profile mode: "
              "%+.2f ns/pair\n",
              prof.scope - trace.scope, prof.scope - prof.c);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 200000L;
  sp::Config cfg;
  cfg.file_path = argc > 2 ? argv[2] : "bench_bindings_cpp.h5";
  sp::Session session(cfg);
  if (session.status() != 0) {
    std::fprintf(stderr, "setup failed: %s\n", sp::strerror(session.status()));
    return 1;
  }
  const int reps = 5;
  const sp::Region c_region("c_handle");
  const sp::Region scope_region("cpp_scope");
  const int hc = c_region.handle();

  const double empty = best_of(reps, [&] { return sp_bench_c_empty(n); });
  const double c_pair = best_of(reps, [&] { return sp_bench_c_pairs(hc, n); });
  const double scope = best_of(reps, [&] {
    return ns_per_iter(n, [&](long i) {
      sp::Scope s(scope_region);
      sink = i;
    });
  });
  const double macro = best_of(reps, [&] {
    return ns_per_iter(n, [&](long i) {
      SP_SCOPE("cpp_sp_scope");
      sink = i;
    });
  });
  const double named = best_of(reps, [&] {
    return ns_per_iter(n, [&](long i) {
      sp::NamedScope s("cpp_named_scope");
      sink = i;
    });
  });

  std::printf(
      "scope-profiler C++ binding: ns per start/stop pair (best of %d x %ld pairs, clock %s)\n",
      reps, n, sp_clock_name());
  std::printf("  %-28s %8.1f ns\n", "empty loop (C)", empty);
  std::printf("  %-28s %8.1f ns\n", "C handle sp_start/sp_stop", c_pair);
  std::printf("  %-28s %8.1f ns  (%.2fx C)\n", "sp::Scope(region)", scope, scope / c_pair);
  std::printf("  %-28s %8.1f ns  (%.2fx C)\n", "SP_SCOPE(\"name\")", macro, macro / c_pair);
  std::printf("  %-28s %8.1f ns  (%.2fx C)\n", "sp::NamedScope (by name)", named, named / c_pair);
  const int rc = session.finalize();
  if (rc != 0) {
    std::fprintf(stderr, "finalize failed: %s\n", sp::strerror(rc));
    return 1;
  }

  // After finalize profiling is off: what instrumentation left in costs.
  const double c_off = best_of(reps, [&] { return sp_bench_c_pairs(hc, n); });
  const double scope_off = best_of(reps, [&] {
    return ns_per_iter(n, [&](long i) {
      sp::Scope s(scope_region);
      sink = i;
    });
  });
  std::printf("  profiling off:\n");
  std::printf("  %-28s %8.1f ns\n", "C handle sp_start/sp_stop", c_off);
  std::printf("  %-28s %8.1f ns\n", "sp::Scope(region)", scope_off);
  return profile_part(n, cfg.file_path + ".profile_part.h5");
}
