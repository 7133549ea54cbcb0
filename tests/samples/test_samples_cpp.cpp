// sp::Config::sample_ms reaches sp_config.sample_ms: 5 ms samples in cpp.h5
// (check_samples.py --case child).
#include <chrono>
#include <scope_profiler.hpp>
#include <thread>

int main() {
  sp::Config cfg;
  if (cfg.sample_ms != 0) return 2; // the library's default: off
  cfg.sample_ms = 5;
  cfg.file_path = "cpp.h5";
  if (sp::setup(cfg) != 0) return 1;
  {
    SP_SCOPE("work");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return sp::finalize() == 0 ? 0 : 1;
}
