/* openmp_stub.c - stands in for the openmp room in a build without
 * omp-tools.h (SCOPE_PROFILER_ENABLE_OPENMP=OFF): asking for OpenMP
 * regions says once that this build cannot record them. */
#include "openmp.h"

static void sp_omp_stub_tell(const sp_config *cfg) {
  static int told;
  if (!cfg->openmp || !cfg->profiling_activated || told) return;
  told = 1;
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "SCOPE_PROFILER_OPENMP (sp_config.openmp): this build has no OpenMP tools interface "
          "(configured without omp-tools.h, SCOPE_PROFILER_ENABLE_OPENMP=OFF): OpenMP constructs "
          "are not recorded (docs/openmp.md)");
}

void sp__openmp_setup(const sp_config *cfg) { sp_omp_stub_tell(cfg); }

void sp__openmp_finalize(const sp_config *cfg) { (void)cfg; }
