// nvtx_cpp.cpp - a C++ program annotated with NVTX's own C++ API
// (nvtx3.hpp: RAII ranges, a domain type, a registered string, a
// unique_range that ends on another thread), run with
// NVTX_INJECTION64_PATH=libscope_profiler_nvtx.so; check_nvtx.py reads:
//   cpp_outer (1) > cpp_solver::cpp_step (3) > cpp_solver::cpp_assemble (3)
//   mark::cpp_mark (1) inside cpp_outer
//   cpp_thread (1 on each of 2 threads)
//   cpp_async (1): started on the main thread, ended on another
#include <atomic>
#include <nvtx3/nvtx3.hpp>
#include <thread>
#include <utility>
#include <vector>

struct cpp_solver {
  static constexpr char const *name{"cpp_solver"};
};
struct assemble_msg {
  static constexpr char const *message{"cpp_assemble"};
};

int main() {
  {
    nvtx3::scoped_range outer{"cpp_outer"};
    for (int i = 0; i < 3; i++) {
      nvtx3::scoped_range_in<cpp_solver> step{"cpp_step"};
      auto const &msg = nvtx3::registered_string_in<cpp_solver>::get<assemble_msg>();
      nvtx3::scoped_range_in<cpp_solver> assemble{msg};
    }
    nvtx3::mark("cpp_mark");
  }
  // Both ranges open at once: a thread that ended leaves its lane (thread
  // id in the file) to the next one.
  std::atomic<int> inside{0};
  std::vector<std::thread> pool;
  for (int i = 0; i < 2; i++)
    pool.emplace_back([&inside] {
      nvtx3::scoped_range r{"cpp_thread"};
      inside++;
      while (inside.load() < 2) std::this_thread::yield();
    });
  for (auto &t : pool) t.join();
  nvtx3::unique_range async{"cpp_async"};
  std::thread ender([r = std::move(async)]() mutable { nvtx3::unique_range gone{std::move(r)}; });
  ender.join();
  return 0;
}
