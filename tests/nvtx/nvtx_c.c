/* nvtx_c.c - a C program annotated with NVTX only (plus one sp_* region of
 * its own), run with NVTX_INJECTION64_PATH=libscope_profiler_nvtx.so:
 * check_nvtx.py then finds in the file exactly the ranges made here.
 *
 *   main thread   outer (1) > inner (3) and mark::checkpoint (1)
 *                 own (sp_start_name, 1) > inside_own (1)
 *                 solver::assemble (registered string, 2)
 *                 solver::io::write (category 7 named "io", 1)
 *                 solver::9::unnamed_cat (category 9, unnamed, 1)
 *                 wide (nvtxRangePushW, 1)
 *                 phase::ex (nvtxRangePushEx, default domain's category 3, 1)
 *                 mark::solver::tick (nvtxDomainMarkEx, 1)
 *   3 workers     worker (1 each) > step (4 each)
 *   start/end     async: started here, ended on another thread (1);
 *                 overlap_a, overlap_b: ended in the order they started (1 each)
 *   forwarding    scope-profiler::ignored: our own domain, never recorded */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>

#include "scope_profiler.h"

static pthread_barrier_t sp_all_in;

static void *worker(void *arg) {
  (void)arg;
  nvtxRangePushA("worker");
  /* All three at once: the file's thread ids are the core's lanes, and a
   * thread that ended leaves its lane to the next one. */
  pthread_barrier_wait(&sp_all_in);
  for (int i = 0; i < 4; i++) {
    nvtxRangePushA("step");
    nvtxRangePop();
  }
  nvtxRangePop();
  return NULL;
}

static void *ender(void *arg) {
  nvtxRangeEnd(*(nvtxRangeId_t *)arg);
  return NULL;
}

static void domain_ranges(void) {
  nvtxDomainHandle_t d = nvtxDomainCreateA("solver");
  nvtxStringHandle_t s = nvtxDomainRegisterStringA(d, "assemble");
  nvtxDomainNameCategoryA(d, 7, "io");
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = s;
  for (int i = 0; i < 2; i++) {
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
  }
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "write";
  a.category = 7;
  nvtxDomainRangePushEx(d, &a);
  nvtxDomainRangePop(d);
  a.category = 9;
  a.message.ascii = "unnamed_cat";
  nvtxDomainRangePushEx(d, &a);
  nvtxDomainRangePop(d);
  a.category = 0;
  a.message.ascii = "tick";
  nvtxDomainMarkEx(d, &a);
  /* The default domain's categories, and nvtxRangePushEx without a domain. */
  nvtxNameCategoryA(3, "phase");
  a.category = 3;
  a.message.ascii = "ex";
  nvtxRangePushEx(&a);
  nvtxRangePop();
  /* The domain the core forwards into: never recorded again. */
  nvtxDomainHandle_t ours = nvtxDomainCreateA("scope-profiler");
  a.category = 0;
  a.message.ascii = "ignored";
  nvtxDomainRangePushEx(ours, &a);
  nvtxDomainRangePop(ours);
}

int main(void) {
  nvtxRangePushA("outer");
  for (int i = 0; i < 3; i++) {
    nvtxRangePushA("inner");
    nvtxRangePop();
  }
  nvtxMarkA("checkpoint");
  nvtxRangePop();

  /* The program's own region: NVTX ranges inside it are its children. */
  sp_start_name("own");
  nvtxRangePushA("inside_own");
  nvtxRangePop();
  sp_stop_name("own");

  domain_ranges();
  nvtxRangePushW(L"wide");
  nvtxRangePop();

  pthread_t th[3];
  pthread_barrier_init(&sp_all_in, NULL, 3);
  for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, worker, NULL);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);

  nvtxRangeId_t id = nvtxRangeStartA("async");
  nvtxRangeId_t a = nvtxRangeStartA("overlap_a");
  nvtxRangeId_t b = nvtxRangeStartA("overlap_b");
  nvtxRangeEnd(a);
  nvtxRangeEnd(b);
  pthread_t e;
  pthread_create(&e, NULL, ender, &id);
  pthread_join(e, NULL);
  nvtxRangeEnd(id); /* a second end: ignored */
  return 0;
}
