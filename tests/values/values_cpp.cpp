// values_cpp.cpp FILE: the C++ binding's sp::call_set overloads (C-string and
// std::string_view keys; integer, floating and string values), with the
// same oracle lines as test_values.c (FILE.oracle.0) for check_values.py.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <string_view>

#include "scope_profiler.hpp"

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  std::string opath = std::string(argv[1]) + ".oracle.0";
  std::FILE *o = std::fopen(opath.c_str(), "w");
  if (!o) return 2;
  sp::Config cfg;
  cfg.file_path = argv[1];
  if (sp::setup(cfg) != 0) return 3;
  const int h = sp_region("step");
  for (int i = 0; i < 30; i++) {
    sp_start(h);
    const std::string key = "view.key";
    const std::string val = "v" + std::to_string(i);
    if (sp::call_set("n", i) != 0 || sp::call_set("x", 0.5 * i) != 0 ||
        sp::call_set("f", 1.5f) != 0 || sp::call_set("s", "text") != 0 ||
        sp::call_set(std::string_view(key), static_cast<std::int64_t>(i) * 3) != 0 ||
        sp::call_set(std::string_view("view.str"), std::string_view(val)) != 0 ||
        sp::call_set(std::string_view("view.real"), 2.25 * i) != 0)
      return 4;
    std::fprintf(o, "0\t0\tstep\t%d\tn\ti\t%d\n", i, i);
    std::fprintf(o, "0\t0\tstep\t%d\tx\td\t%.17g\n", i, 0.5 * i);
    std::fprintf(o, "0\t0\tstep\t%d\tf\td\t1.5\n", i);
    std::fprintf(o, "0\t0\tstep\t%d\ts\ts\ttext\n", i);
    std::fprintf(o, "0\t0\tstep\t%d\tview.key\ti\t%d\n", i, i * 3);
    std::fprintf(o, "0\t0\tstep\t%d\tview.str\ts\t%s\n", i, val.c_str());
    std::fprintf(o, "0\t0\tstep\t%d\tview.real\td\t%.17g\n", i, 2.25 * i);
    sp_stop(h);
  }
  std::fclose(o);
  int rc = sp::finalize();
  std::printf("finalize %d\n", rc);
  return rc == 0 ? 0 : 5;
}
