/* ompt_tool.c - the tool the OpenMP runtime asks for (ompt_start_tool),
 * and what sp_setup and sp_finalize say when no runtime can deliver.
 *
 * An OMPT runtime (LLVM's libomp) calls ompt_start_tool once, when it
 * starts: at the program's first OpenMP construct or call, which may come
 * before sp_setup. The tool then takes part when SCOPE_PROFILER_OPENMP is
 * set (not 0) in the environment, or when a session with openmp on is
 * running; otherwise it declines and the runtime runs without a tool (no
 * cost at all). Taking part, it registers the callbacks once; they record
 * only while a session with openmp on records (ompt_events.c), so the
 * setting read at each sp_setup still decides.
 *
 * Loaded by the runtime alone (OMP_TOOL_LIBRARIES=.../libscope_profiler.so
 * into a program neither linked with the library nor preloading it, so its
 * sp_setup is not in the global scope), the tool runs a session of its own:
 * sp_setup(NULL) (the SCOPE_PROFILER_* environment) at initialize, and
 * sp_finalize from an atexit handler registered then (it runs before
 * libomp's own exit teardown and the library's exit flush, registered
 * earlier) or at the runtime's finalize, whichever comes first. A later
 * sp_setup of the program (a dlopen'ed library) replaces that session like
 * any repeated sp_setup; the tool then finalizes nothing. */
#include <dlfcn.h>
#include <stdlib.h>
#include "openmp.h"
#include "ompt_events.h"

int sp__omp_level;
static int sp_omp_declined; /* the runtime started the tool, and it declined */
static int sp_omp_told;     /* the one message about the runtime was given */

/* SCOPE_PROFILER_OPENMP as an SP_OPENMP_* (config.c, through the table
 * the session wires when the library loads). */
static int sp_omp_env_level(void) { return sp__up.openmp_env ? sp__up.openmp_env() : 0; }

static int sp_omp_own;              /* ompt_start_tool: run a session of the tool's own */
static unsigned sp_omp_own_session; /* sp__session after the tool's sp_setup */
static int sp_omp_own_running;      /* that session is set up and not yet finalized */

static int sp_omp_mode_off(void) {
  return __atomic_load_n(&sp__mode, __ATOMIC_ACQUIRE) == SP_MODE_OFF;
}

/* The tool's own session ends once, if the program did not replace it. */
static void sp_omp_own_finalize(void) {
  if (!sp_omp_own_running) return;
  sp_omp_own_running = 0;
  if (sp__session == sp_omp_own_session && !sp_omp_mode_off()) (void)sp__up.tool_finalize();
}

static void sp_omp_own_setup(void) {
  if (!sp__up.tool_setup || !sp_omp_mode_off()) return;
  int rc = sp__up.tool_setup(NULL);
  if (rc != 0 && sp_omp_mode_off()) return; /* sp_setup said why on stderr */
  sp_omp_own_session = sp__session;
  sp_omp_own_running = 1;
  atexit(sp_omp_own_finalize);
}

static int sp_omp_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                             ompt_data_t *tool_data) {
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_callback) return 0;
  sp__omp_callbacks_register(set_callback, sp__omp_level);
  if (sp_omp_own) sp_omp_own_setup();
  return 1; /* keep the tool */
}

static void sp_omp_finalize_tool(ompt_data_t *tool_data) {
  (void)tool_data;
  sp_omp_own_finalize();
}

/* 1 when the program's global scope has the library (linked, preloaded or
 * dlopen'ed RTLD_GLOBAL), 0 when libomp dlopen'ed it locally for
 * OMP_TOOL_LIBRARIES. dlsym(RTLD_DEFAULT) would not tell: from inside this
 * library it searches the library's own scope too; the main program's
 * handle searches the global scope only. */
static int sp_omp_global(void) {
  void *main_handle = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
  if (!main_handle) return 1;
  int found = dlsym(main_handle, "sp_setup") != NULL;
  dlclose(main_handle);
  return found;
}

SP_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                    const char *runtime_version);

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {sp_omp_initialize, sp_omp_finalize_tool, {0}};
  int level = sp_omp_env_level();
  int session = !sp_omp_mode_off() ? sp__state.cfg.openmp : 0;
  if (session > level) level = session;
  if (level == 0) {
    sp_omp_declined = 1;
    return NULL;
  }
  sp__omp_level = level;
  if (sp_omp_mode_off()) sp_omp_own = !sp_omp_global();
  return &result;
}

/* Which runtime is loaded: 2 an OMPT one (LLVM's libomp, or Intel's),
 * 1 GCC's libgomp, 0 none yet. libomp also defines libgomp's GOMP_ entry
 * points (it runs gcc-built code), so it is looked for first. */
static int sp_omp_runtime(void) {
  if (dlsym(RTLD_DEFAULT, "__kmpc_fork_call")) return 2;
  if (dlsym(RTLD_DEFAULT, "GOMP_parallel")) return 1;
  return 0;
}

static void sp_omp_tell(const char *why) {
  if (sp_omp_told) return;
  sp_omp_told = 1;
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "SCOPE_PROFILER_OPENMP (sp_config.openmp): %s", why);
}

static const char sp_omp_libgomp[] =
    "this OpenMP runtime (GCC's libgomp) has no tools interface (OMPT): OpenMP constructs are "
    "not recorded, the rest of the profile is; run the program on LLVM's libomp (Debian "
    "package libomp-dev), e.g. LD_PRELOAD=/usr/lib/llvm-14/lib/libomp.so.5 (docs/openmp.md)";

void sp__openmp_setup(const sp_config *cfg) {
  if (!cfg->openmp || !cfg->profiling_activated) return;
  if (sp__omp_level) {
    if (cfg->openmp > SP_OPENMP_ON && cfg->openmp != sp__omp_level &&
        sp__omp_level != SP_OPENMP_ALL)
      sp_omp_tell(
          "the OpenMP runtime started the tool with fewer kinds of constructs than this "
          "session asks for (tasks, locks): set SCOPE_PROFILER_OPENMP in the environment "
          "to record them");
    return;
  }
  if (sp_omp_declined) {
    sp_omp_tell(
        "the OpenMP runtime started before sp_setup, when OpenMP was not asked for: "
        "OpenMP constructs are not recorded; set SCOPE_PROFILER_OPENMP in the "
        "environment (docs/openmp.md)");
    return;
  }
  if (sp_omp_runtime() == 1) sp_omp_tell(sp_omp_libgomp);
}

void sp__openmp_finalize(const sp_config *cfg) {
  if (!cfg->openmp || !cfg->profiling_activated || sp__omp_level) return;
  /* libomp loaded but never started: the program ran no OpenMP construct. */
  if (sp_omp_runtime() == 1) sp_omp_tell(sp_omp_libgomp);
}
