// bench_cpp.cpp - ns per start/stop pair: sp::Scope and SP_SCOPE against
// the C handle path, in the same run and session.
//
// Usage: sp_bench_bindings_cpp [pairs per measurement] [output.h5]
// Each figure is the best of 5 repetitions. Nothing is asserted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <scope_profiler.hpp>

extern "C" double sp_bench_c_pairs(int h, long n);
extern "C" double sp_bench_c_empty(long n);

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
  return 0;
}
