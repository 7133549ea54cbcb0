/* nvtx_inject.c - libscope_profiler_nvtx: an NVTX injection library.
 *
 * NVTX (header-only since v3) loads the library NVTX_INJECTION64_PATH names
 * at a program's first NVTX call and calls its InitializeInjectionNvtx2,
 * which fills NVTX's function tables with the tool's functions: from then
 * on every nvtxRangePush/Pop, nvtxRangeStart/End, nvtxMark, domain and
 * registered string of the program reaches this library, GPU or not. Each
 * shared object that includes the NVTX headers has its own tables and
 * initializes once: this function may run several times.
 *
 * The events become regions of libscope_profiler (docs/gpu.md): pushed
 * ranges calls on the calling thread, in the call tree of the program's own
 * sp_* regions; start/end ranges calls in lanes of their own (nvtx_lanes.c);
 * marks calls that end as they start.
 *
 * Session: when the program has none running at that first NVTX call, this
 * library sets one up from the SCOPE_PROFILER_* variables and writes it at
 * exit (or at MPI_Finalize, as the core does for any session);
 * SCOPE_PROFILER_NVTX_AUTO=0 leaves that to the program's own sp_setup. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_inject.h"
#include "scope_profiler.h"

/* ---- the callbacks ----------------------------------------------------- */

static void sp_markEx(const nvtxEventAttributes_t *a) {
  sp__nvtx_mark(sp__nvtx_event_region(NULL, a, 1));
}
static void sp_markA(const char *m) { sp__nvtx_mark(sp__nvtx_ascii_region(m, 1)); }
static void sp_markW(const wchar_t *m) { sp__nvtx_mark(sp__nvtx_wide_region(m, 1)); }
static nvtxRangeId_t sp_startEx(const nvtxEventAttributes_t *a) {
  return sp__nvtx_range_start(sp__nvtx_event_region(NULL, a, 0));
}
static nvtxRangeId_t sp_startA(const char *m) {
  return sp__nvtx_range_start(sp__nvtx_ascii_region(m, 0));
}
static nvtxRangeId_t sp_startW(const wchar_t *m) {
  return sp__nvtx_range_start(sp__nvtx_wide_region(m, 0));
}
static void sp_end(nvtxRangeId_t id) { sp__nvtx_range_end(id); }
static int sp_pushEx(const nvtxEventAttributes_t *a) {
  return sp__nvtx_push(NULL, sp__nvtx_event_region(NULL, a, 0));
}
static int sp_pushA(const char *m) { return sp__nvtx_push(NULL, sp__nvtx_ascii_region(m, 0)); }
static int sp_pushW(const wchar_t *m) { return sp__nvtx_push(NULL, sp__nvtx_wide_region(m, 0)); }
static int sp_pop(void) { return sp__nvtx_pop(NULL); }
static void sp_nameCatA(uint32_t c, const char *n) { sp__nvtx_name_category(NULL, c, n); }
static void sp_nameCatW(uint32_t c, const wchar_t *n) { sp__nvtx_name_category_w(NULL, c, n); }
static void sp_nameThreadA(uint32_t t, const char *n) { (void)t, (void)n; }
static void sp_nameThreadW(uint32_t t, const wchar_t *n) { (void)t, (void)n; }

static void sp_d_markEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  sp__nvtx_mark(sp__nvtx_event_region(d, a, 1));
}
static nvtxRangeId_t sp_d_startEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  return sp__nvtx_range_start(sp__nvtx_event_region(d, a, 0));
}
static void sp_d_end(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  (void)d;
  sp__nvtx_range_end(id);
}
/* Our own forwarding domain is not recorded and keeps no stack: its pushes
 * come from inside the sp_start of a range being pushed. */
static int sp_d_pushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  if (d && d->skip) return 0;
  return sp__nvtx_push(d, sp__nvtx_event_region(d, a, 0));
}
static int sp_d_pop(nvtxDomainHandle_t d) { return d && d->skip ? 0 : sp__nvtx_pop(d); }
static void sp_d_nameCatA(nvtxDomainHandle_t d, uint32_t c, const char *n) {
  sp__nvtx_name_category(d, c, n);
}
static void sp_d_nameCatW(nvtxDomainHandle_t d, uint32_t c, const wchar_t *n) {
  sp__nvtx_name_category_w(d, c, n);
}
static nvtxStringHandle_t sp_d_regA(nvtxDomainHandle_t d, const char *s) {
  return sp__nvtx_string_register(d, s);
}
static nvtxStringHandle_t sp_d_regW(nvtxDomainHandle_t d, const wchar_t *s) {
  return sp__nvtx_string_register_w(d, s);
}
static nvtxDomainHandle_t sp_d_createA(const char *n) { return sp__nvtx_domain_create(n); }
static nvtxDomainHandle_t sp_d_createW(const wchar_t *n) { return sp__nvtx_domain_create_w(n); }
static void sp_d_destroy(nvtxDomainHandle_t d) { sp__nvtx_domain_destroy(d); }
static void sp_initialize(const void *reserved) { (void)reserved; }

/* ---- the tables ---------------------------------------------------------- */

typedef struct sp_slot {
  unsigned id;
  NvtxFunctionPointer fn;
} sp_slot_t;

#define SP_FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

static const sp_slot_t sp_core[] = {
    {NVTX_CBID_CORE_MarkEx, SP_FN(sp_markEx)},
    {NVTX_CBID_CORE_MarkA, SP_FN(sp_markA)},
    {NVTX_CBID_CORE_MarkW, SP_FN(sp_markW)},
    {NVTX_CBID_CORE_RangeStartEx, SP_FN(sp_startEx)},
    {NVTX_CBID_CORE_RangeStartA, SP_FN(sp_startA)},
    {NVTX_CBID_CORE_RangeStartW, SP_FN(sp_startW)},
    {NVTX_CBID_CORE_RangeEnd, SP_FN(sp_end)},
    {NVTX_CBID_CORE_RangePushEx, SP_FN(sp_pushEx)},
    {NVTX_CBID_CORE_RangePushA, SP_FN(sp_pushA)},
    {NVTX_CBID_CORE_RangePushW, SP_FN(sp_pushW)},
    {NVTX_CBID_CORE_RangePop, SP_FN(sp_pop)},
    {NVTX_CBID_CORE_NameCategoryA, SP_FN(sp_nameCatA)},
    {NVTX_CBID_CORE_NameCategoryW, SP_FN(sp_nameCatW)},
    {NVTX_CBID_CORE_NameOsThreadA, SP_FN(sp_nameThreadA)},
    {NVTX_CBID_CORE_NameOsThreadW, SP_FN(sp_nameThreadW)},
};

static const sp_slot_t sp_core2[] = {
    {NVTX_CBID_CORE2_DomainMarkEx, SP_FN(sp_d_markEx)},
    {NVTX_CBID_CORE2_DomainRangeStartEx, SP_FN(sp_d_startEx)},
    {NVTX_CBID_CORE2_DomainRangeEnd, SP_FN(sp_d_end)},
    {NVTX_CBID_CORE2_DomainRangePushEx, SP_FN(sp_d_pushEx)},
    {NVTX_CBID_CORE2_DomainRangePop, SP_FN(sp_d_pop)},
    {NVTX_CBID_CORE2_DomainNameCategoryA, SP_FN(sp_d_nameCatA)},
    {NVTX_CBID_CORE2_DomainNameCategoryW, SP_FN(sp_d_nameCatW)},
    {NVTX_CBID_CORE2_DomainRegisterStringA, SP_FN(sp_d_regA)},
    {NVTX_CBID_CORE2_DomainRegisterStringW, SP_FN(sp_d_regW)},
    {NVTX_CBID_CORE2_DomainCreateA, SP_FN(sp_d_createA)},
    {NVTX_CBID_CORE2_DomainCreateW, SP_FN(sp_d_createW)},
    {NVTX_CBID_CORE2_DomainDestroy, SP_FN(sp_d_destroy)},
    {NVTX_CBID_CORE2_Initialize, SP_FN(sp_initialize)},
};

static int sp_table_fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
                         const sp_slot_t *slots, size_t n) {
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (!cb->GetModuleFunctionTable(module, &table, &size) || !table) return 0;
  for (size_t i = 0; i < n; i++)
    if (slots[i].id < size && table[slots[i].id]) *table[slots[i].id] = slots[i].fn;
  return 1;
}

/* ---- the session ----------------------------------------------------------- */

static void sp_nvtx_finalize(void *arg) {
  (void)arg;
  sp__nvtx_ranges_finalize();
  sp__nvtx_lanes_finalize();
}

static void sp_nvtx_atexit(void) {
  if (sp_is_active()) sp_finalize();
}

/* Once, by the first initialization. Not pthread_once: with forwarding on
 * (SCOPE_PROFILER_NVTX=1), the sp_setup below makes the core's first NVTX
 * call, which initializes the core's own NVTX and so calls
 * InitializeInjectionNvtx2 again, on this thread, from inside this. */
static void sp_nvtx_once(void) {
  sp_finalize_hook_add(sp_nvtx_finalize, NULL);
  const char *a = getenv("SCOPE_PROFILER_NVTX_AUTO");
  if (a && (!strcmp(a, "0") || !strcmp(a, "off") || !strcmp(a, "no") || !strcmp(a, "false")))
    return;
  if (!sp_is_active() && sp_setup(NULL) != SP_ENOMEM) atexit(sp_nvtx_atexit);
}

SP_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  const NvtxExportTableCallbacks *cb =
      get ? (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS) : NULL;
  if (!cb || cb->struct_size < sizeof *cb) return 0; /* 0: NVTX turns itself off */
  static int started;
  int ok = sp_table_fill(cb, NVTX_CB_MODULE_CORE, sp_core, sizeof sp_core / sizeof *sp_core);
  ok &= sp_table_fill(cb, NVTX_CB_MODULE_CORE2, sp_core2, sizeof sp_core2 / sizeof *sp_core2);
  if (ok && !__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL)) sp_nvtx_once();
  return ok;
}
