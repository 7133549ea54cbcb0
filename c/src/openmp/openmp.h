/* openmp.h - OpenMP constructs as regions through the OpenMP tools
 * interface (OMPT; sp_config.openmp, SCOPE_PROFILER_OPENMP; docs/openmp.md).
 *
 * A side room that the build leaves out when omp-tools.h is not found
 * (openmp_stub.c stands in). The session calls it at sp_setup and
 * sp_finalize; the runtime calls ompt_start_tool and the callbacks. */
#ifndef SP_OPENMP_H
#define SP_OPENMP_H

#include "sp_internal.h"

/* At sp_setup, recording on: when the session asks for OpenMP regions and
 * no tool interface can deliver them (GCC's libgomp; a runtime that started
 * before sp_setup without SCOPE_PROFILER_OPENMP), says so once on stderr. */
SP_HIDDEN void sp__openmp_setup(const sp_config *cfg);

/* At sp_finalize: the same message when the session asked for OpenMP
 * regions, an OpenMP runtime is loaded and it never started the tool. */
SP_HIDDEN void sp__openmp_finalize(const sp_config *cfg);

#endif
