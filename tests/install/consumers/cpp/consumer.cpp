// consumer.cpp - a C++-only program outside the project that uses the
// installed scope_profiler.hpp (component "cpp") and writes a small profile
// for check_profile.py.
//
// Usage: sp_consumer_cpp <output.h5>
// Regions: "cpp outer" 3 calls (sp::Scope), "cpp inner" 12 calls (SP_SCOPE).
#include <cstdio>
#include <cstring>

#include <scope_profiler.hpp>
#ifdef SP_CONSUMER_MPI
#include <scope_profiler_mpi.h>
#endif

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output.h5>\n", argv[0]);
    return 2;
  }
#ifdef SP_CONSUMER_MPI
  MPI_Init(&argc, &argv);
#endif
  if (std::strcmp(sp_version_string(), SP_VERSION_STRING) != 0) {
    std::fprintf(stderr, "consumer: header %s, library %s\n", SP_VERSION_STRING,
                 sp_version_string());
    return 1;
  }
  int rc;
  {
    sp::Config cfg;
    cfg.file_path = argv[1];
    sp::Session session(cfg);
    if (session.status() != 0) {
      std::fprintf(stderr, "consumer: setup: %s\n", sp::strerror(session.status()));
      return 1;
    }
#ifdef SP_CONSUMER_MPI
    if (sp_mpi_set_comm(MPI_COMM_WORLD) != 0) return 1;
#endif
    static const sp::Region outer("cpp outer");
    volatile double sink = 0.0;
    for (int i = 0; i < 3; ++i) {
      sp::Scope s(outer);
      for (int j = 0; j < 4; ++j) {
        SP_SCOPE("cpp inner");
        for (int k = 0; k < 1000; ++k) sink = sink + k * 0.5;
      }
    }
    rc = session.finalize();
  }
  if (rc != 0) {
    std::fprintf(stderr, "consumer: finalize: %s\n", sp::strerror(rc));
    return 1;
  }
#ifdef SP_CONSUMER_MPI
  MPI_Finalize();
#endif
  std::printf("consumer: wrote %s with scope-profiler %s\n", argv[1], sp_version_string());
  return 0;
}
