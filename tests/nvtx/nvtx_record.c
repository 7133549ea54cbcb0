/* nvtx_record.c - an NVTX injection library of the tests: writes every
 * domain, registered string, push and pop it sees to the file
 * $SP_NVTX_RECORD, one line each ("push <domain> <name>", "pop <domain>"),
 * so that a test can read what SCOPE_PROFILER_NVTX=1 made of its regions. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nvtxDomainRegistration_st {
  char name[256];
};
struct nvtxStringRegistration_st {
  char text[4096];
};

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *rec;

static void rec_line(const char *fmt, const char *a, const char *b) {
  pthread_mutex_lock(&rec_lock);
  if (rec) {
    fprintf(rec, fmt, a, b);
    fflush(rec);
  }
  pthread_mutex_unlock(&rec_lock);
}

static nvtxDomainHandle_t rec_create(const char *name) {
  struct nvtxDomainRegistration_st *d = calloc(1, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", name);
  rec_line("domain %s%s\n", name, "");
  return d;
}

static nvtxStringHandle_t rec_register(nvtxDomainHandle_t d, const char *s) {
  struct nvtxStringRegistration_st *r = calloc(1, sizeof *r);
  snprintf(r->text, sizeof r->text, "%s", s);
  rec_line("string %s %s\n", d ? d->name : "-", s);
  return r;
}

static int rec_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  const char *name = a->messageType == NVTX_MESSAGE_TYPE_REGISTERED ? a->message.registered->text
                     : a->messageType == NVTX_MESSAGE_TYPE_ASCII    ? a->message.ascii
                                                                    : "?";
  rec_line(
      a->messageType == NVTX_MESSAGE_TYPE_REGISTERED ? "push %s %s registered\n" : "push %s %s\n",
      d ? d->name : "-", name);
  return 0;
}

static int rec_pop(nvtxDomainHandle_t d) {
  rec_line("pop %s%s\n", d ? d->name : "-", "");
  return 0;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable t = NULL;
  unsigned int n = 0;
  pthread_mutex_lock(&rec_lock);
  if (!rec) {
    const char *path = getenv("SP_NVTX_RECORD");
    rec = path ? fopen(path, "a") : NULL;
  }
  pthread_mutex_unlock(&rec_lock);
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) return 0;
  *t[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)(void (*)(void))rec_create;
  *t[NVTX_CBID_CORE2_DomainRegisterStringA] = (NvtxFunctionPointer)(void (*)(void))rec_register;
  *t[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)(void (*)(void))rec_push;
  *t[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)(void (*)(void))rec_pop;
  return 1;
}
