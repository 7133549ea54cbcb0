// meta_cpp.cpp - SP_SCOPE and SP_FUNCTION record their own place in the
// source; sp::metadata_set of strings, integers and reals; for
// check_runmeta.py (case cpp). Writes what it expects into the JSON file.
#include <cstdio>
#include <string>

#include "scope_profiler.hpp"

static int function_line;
static int scope_line;

static void step() {
  function_line = __LINE__ + 1;
  SP_FUNCTION();
  {
    scope_line = __LINE__ + 1;
    SP_SCOPE("cpp_halo");
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  sp::Config cfg;
  cfg.file_path = argv[1];
  if (sp::setup(cfg) != 0) return 1;
  int failures = 0;
  failures += sp::metadata_set("cpp_string", std::string("naïve")) != 0;
  failures += sp::metadata_set("cpp_int", 7) != 0;
  failures += sp::metadata_set("cpp_size", std::size_t{1} << 40) != 0;
  failures += sp::metadata_set("cpp_real", 2.5f) != 0;
  failures += sp::metadata_set("cpp/bad", 1) != SP_EINVAL;
  for (int i = 0; i < 3; i++) step();
  FILE *f = std::fopen(argv[2], "w");
  std::fprintf(f,
               "{\"values\": {\"cpp_string\": \"naïve\", \"cpp_int\": 7, \"cpp_size\": %lld, "
               "\"cpp_real\": 2.5},\n\"absent\": [\"cpp/bad\"],\n"
               "\"sources\": [[\"step\", \"%s\", %d], [\"cpp_halo\", \"%s\", %d]],\n"
               "\"no_source\": [], \"end\": 1}\n",
               1LL << 40, __FILE__, function_line, __FILE__, scope_line);
  std::fclose(f);
  if (sp::finalize() != 0) failures++;
  return failures;
}
