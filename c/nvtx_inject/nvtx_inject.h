/* nvtx_inject.h - the NVTX injection library's parts (internal).
 *
 * nvtx_inject.c  InitializeInjectionNvtx2: fills NVTX's function tables,
 *                sets a session up when the program has none
 * nvtx_names.c   domains, registered strings, categories and the region
 *                handle of an event's name (cached per thread)
 * nvtx_ranges.c  push/pop on the calling thread, marks
 * nvtx_lanes.c   start/end ranges, in lanes of their own
 * Only the public API of libscope_profiler is used (as c/instrument does). */
#ifndef SP_NVTX_INJECT_H
#define SP_NVTX_INJECT_H

#define NVTX_NO_IMPL /* a tool: the types and IDs, no NVTX implementation */
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <wchar.h>

/* An NVTX domain as our tool sees it; NVTX passes its address back. */
struct nvtxDomainRegistration_st {
  char *name;  /* UTF-8; the region names' prefix "name::" */
  int skip;    /* our own forwarding domain "scope-profiler": never recorded */
  char **cats; /* category names by number (nvtxDomainNameCategory), or NULL */
  uint32_t ncats;
  struct nvtxDomainRegistration_st *next; /* every domain, kept (nvtx_names.c) */
};

/* A registered string (nvtxDomainRegisterString): its text, once. */
struct nvtxStringRegistration_st {
  struct nvtxDomainRegistration_st *dom;
  char *text;
  struct nvtxStringRegistration_st *next; /* every string, kept */
};

typedef struct nvtxDomainRegistration_st sp_nvtx_domain_t;

/* The region of an event (domain NULL: the default domain), -1 when it is
 * not recorded (no session, our own domain, a bad name). mark: the region
 * of a mark, named "mark::" and the name (docs/gpu.md). */
int32_t sp__nvtx_event_region(sp_nvtx_domain_t *dom, const nvtxEventAttributes_t *a, int mark);
/* The region of a plain message (nvtxRangePushA and friends). */
int32_t sp__nvtx_ascii_region(const char *msg, int mark);
int32_t sp__nvtx_wide_region(const wchar_t *msg, int mark);

sp_nvtx_domain_t *sp__nvtx_domain_create(const char *name);
sp_nvtx_domain_t *sp__nvtx_domain_create_w(const wchar_t *name);
void sp__nvtx_domain_destroy(sp_nvtx_domain_t *dom);
void sp__nvtx_name_category(sp_nvtx_domain_t *dom, uint32_t cat, const char *name);
void sp__nvtx_name_category_w(sp_nvtx_domain_t *dom, uint32_t cat, const wchar_t *name);
nvtxStringHandle_t sp__nvtx_string_register(sp_nvtx_domain_t *dom, const char *s);
nvtxStringHandle_t sp__nvtx_string_register_w(sp_nvtx_domain_t *dom, const wchar_t *s);
/* wchar_t text as UTF-8 in malloc'd memory, or NULL. */
char *sp__nvtx_utf8(const wchar_t *w);

/* Push/pop on the calling thread: NVTX's return values (the level). */
int sp__nvtx_push(sp_nvtx_domain_t *dom, int32_t h);
int sp__nvtx_pop(sp_nvtx_domain_t *dom);
void sp__nvtx_mark(int32_t h);
/* The calling thread's ranges still open at finalize end there. */
void sp__nvtx_ranges_finalize(void);

/* Start/end ranges (nvtx_lanes.c). */
nvtxRangeId_t sp__nvtx_range_start(int32_t h);
void sp__nvtx_range_end(nvtxRangeId_t id);
void sp__nvtx_lanes_finalize(void);

#endif
