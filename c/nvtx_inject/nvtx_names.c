/* nvtx_names.c - the region of an NVTX event's name.
 *
 * A region is named "<domain>::<category>::<message>", each part present
 * when the event has it (the default domain and category 0 have no part);
 * a mark's region has "mark::" in front. The category part is the name
 * nvtxNameCategory gave the number, else the number.
 *
 * Each thread keeps a direct-mapped cache from (domain, message address,
 * category, mark) to the region handle of the running session: a hit costs
 * a string compare (the address of a message buffer may hold another text
 * next time; a registered string's cannot, and costs no compare); a miss
 * builds the name and asks sp_region_n, which takes the core's lock. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_inject.h"
#include "scope_profiler.h"

#define SP_NC_SLOTS 512u /* per thread; a power of two */

typedef struct sp_nc_entry {
  const void *key; /* message address, or the registered string */
  const sp_nvtx_domain_t *dom;
  uint32_t cat;
  int32_t h;
  unsigned session; /* sp__session of h */
  int mark;
  char *text; /* the message compared on a hit (NULL: registered) */
} sp_nc_entry_t;

static __thread sp_nc_entry_t *sp_nc;
static pthread_key_t sp_nc_key;
static pthread_once_t sp_nc_once = PTHREAD_ONCE_INIT;
/* Domains' category names; the default domain's from nvtxNameCategory. */
static pthread_mutex_t sp_names_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_nvtx_domain_t sp_default_dom;
/* Every domain and registered string ever made, under sp_names_lock: NVTX
 * never frees them, programs keep their handles in places that may be gone
 * at exit, and events in flight may still name them. */
static sp_nvtx_domain_t *sp_domains;
static struct nvtxStringRegistration_st *sp_strings;

static void sp_nc_free(void *p) {
  sp_nc_entry_t *t = p;
  for (unsigned i = 0; i < SP_NC_SLOTS; i++) free(t[i].text);
  free(t);
}

static void sp_nc_key_make(void) { pthread_key_create(&sp_nc_key, sp_nc_free); }

static sp_nc_entry_t *sp_nc_table(void) {
  if (__builtin_expect(sp_nc != NULL, 1)) return sp_nc;
  pthread_once(&sp_nc_once, sp_nc_key_make);
  sp_nc = calloc(SP_NC_SLOTS, sizeof *sp_nc);
  if (sp_nc) pthread_setspecific(sp_nc_key, sp_nc);
  return sp_nc;
}

char *sp__nvtx_utf8(const wchar_t *w) {
  if (!w) return NULL;
  size_t n = wcslen(w);
  char *s = malloc(4 * n + 1), *o = s;
  if (!s) return NULL;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = (uint32_t)w[i];
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD; /* not a code point */
    if (c < 0x80) {
      *o++ = (char)c;
    } else if (c < 0x800) {
      *o++ = (char)(0xC0 | (c >> 6));
      *o++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      *o++ = (char)(0xE0 | (c >> 12));
      *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
      *o++ = (char)(0x80 | (c & 0x3F));
    } else {
      *o++ = (char)(0xF0 | (c >> 18));
      *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
      *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
      *o++ = (char)(0x80 | (c & 0x3F));
    }
  }
  *o = '\0';
  return s;
}

/* ---- domains, categories, registered strings --------------------------- */

sp_nvtx_domain_t *sp__nvtx_domain_create(const char *name) {
  sp_nvtx_domain_t *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->name = strdup(name ? name : "");
  /* The core's forwarding (SCOPE_PROFILER_NVTX=1) pushes our own regions
   * into this domain: recording them again would loop. */
  d->skip = d->name && strcmp(d->name, "scope-profiler") == 0;
  pthread_mutex_lock(&sp_names_lock);
  d->next = sp_domains;
  sp_domains = d;
  pthread_mutex_unlock(&sp_names_lock);
  return d;
}

sp_nvtx_domain_t *sp__nvtx_domain_create_w(const wchar_t *name) {
  char *s = sp__nvtx_utf8(name);
  sp_nvtx_domain_t *d = sp__nvtx_domain_create(s);
  free(s);
  return d;
}

/* A destroyed domain's memory is kept: its registered strings, and events
 * still in flight on other threads, point to it. */
void sp__nvtx_domain_destroy(sp_nvtx_domain_t *dom) { (void)dom; }

void sp__nvtx_name_category(sp_nvtx_domain_t *dom, uint32_t cat, const char *name) {
  if (!name || cat == 0) return;
  if (!dom) dom = &sp_default_dom;
  pthread_mutex_lock(&sp_names_lock);
  if (cat >= dom->ncats && cat < (1u << 20)) { /* categories are small numbers */
    char **c = realloc(dom->cats, (cat + 1) * sizeof *c);
    if (c) {
      memset(c + dom->ncats, 0, (cat + 1 - dom->ncats) * sizeof *c);
      dom->cats = c;
      dom->ncats = cat + 1;
    }
  }
  if (cat < dom->ncats) {
    free(dom->cats[cat]);
    dom->cats[cat] = strdup(name);
  }
  pthread_mutex_unlock(&sp_names_lock);
}

void sp__nvtx_name_category_w(sp_nvtx_domain_t *dom, uint32_t cat, const wchar_t *name) {
  char *s = sp__nvtx_utf8(name);
  sp__nvtx_name_category(dom, cat, s);
  free(s);
}

nvtxStringHandle_t sp__nvtx_string_register(sp_nvtx_domain_t *dom, const char *s) {
  struct nvtxStringRegistration_st *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->dom = dom;
  r->text = strdup(s ? s : "");
  if (!r->text) {
    free(r);
    return NULL;
  }
  pthread_mutex_lock(&sp_names_lock);
  r->next = sp_strings;
  sp_strings = r;
  pthread_mutex_unlock(&sp_names_lock);
  return r;
}

nvtxStringHandle_t sp__nvtx_string_register_w(sp_nvtx_domain_t *dom, const wchar_t *s) {
  char *u = sp__nvtx_utf8(s);
  nvtxStringHandle_t r = sp__nvtx_string_register(dom, u ? u : "");
  free(u);
  return r;
}

/* ---- names to regions ---------------------------------------------------- */

/* The region named after the parts; -1 when refused. */
static int32_t sp_resolve(const sp_nvtx_domain_t *dom, uint32_t cat, const char *msg, int mark) {
  char catbuf[16];
  const char *catname = NULL;
  if (cat != 0) {
    const sp_nvtx_domain_t *cd = dom ? dom : &sp_default_dom;
    pthread_mutex_lock(&sp_names_lock);
    if (cat < cd->ncats && cd->cats[cat]) catname = strdup(cd->cats[cat]);
    pthread_mutex_unlock(&sp_names_lock);
    if (!catname) {
      snprintf(catbuf, sizeof catbuf, "%u", (unsigned)cat);
      catname = catbuf;
    }
  }
  const char *dname = dom && dom->name && *dom->name ? dom->name : NULL;
  size_t len = (mark ? 6 : 0) + (dname ? strlen(dname) + 2 : 0) +
               (catname ? strlen(catname) + 2 : 0) + strlen(msg) + 1;
  char *name = malloc(len);
  int32_t h = -1;
  if (name) {
    snprintf(name, len, "%s%s%s%s%s%s", mark ? "mark::" : "", dname ? dname : "", dname ? "::" : "",
             catname ? catname : "", catname ? "::" : "", msg);
    h = sp_region(name);
    free(name);
  }
  if (catname && catname != catbuf) free((char *)catname);
  return h < 0 ? -1 : h;
}

/* The cached region of (dom, key, cat, mark); text: the message to
 * compare, NULL for a registered string. */
static int32_t sp_lookup(const sp_nvtx_domain_t *dom, const void *key, const char *text,
                         uint32_t cat, int mark) {
  if (!sp__enabled || !key || (dom && dom->skip)) return -1;
  sp_nc_entry_t *t = sp_nc_table();
  const unsigned session = sp__session;
  if (!t) return -1;
  uintptr_t x =
      ((uintptr_t)key >> 3) ^ ((uintptr_t)dom >> 5) ^ (cat * 0x9E3779B1u) ^ (uintptr_t)mark;
  sp_nc_entry_t *e = &t[(x ^ (x >> 9)) & (SP_NC_SLOTS - 1)];
  if (e->key == key && e->dom == dom && e->cat == cat && e->mark == mark && e->session == session &&
      (!text || (e->text && strcmp(e->text, text) == 0)))
    return e->h;
  const char *msg = text ? text : ((const struct nvtxStringRegistration_st *)key)->text;
  int32_t h = sp_resolve(dom, cat, msg, mark);
  free(e->text);
  e->text = text ? strdup(text) : NULL;
  if (text && !e->text) { /* no memory to keep the text: do not cache */
    e->key = NULL;
    return h;
  }
  e->key = key;
  e->dom = dom;
  e->cat = cat;
  e->mark = mark;
  e->h = h;
  e->session = session;
  return h;
}

int32_t sp__nvtx_ascii_region(const char *msg, int mark) {
  return sp_lookup(NULL, msg, msg, 0, mark);
}

int32_t sp__nvtx_wide_region(const wchar_t *msg, int mark) {
  if (!sp__enabled || !msg) return -1;
  char *s = sp__nvtx_utf8(msg);
  /* Keyed by the wide text's address, compared as UTF-8. */
  int32_t h = s ? sp_lookup(NULL, msg, s, 0, mark) : -1;
  free(s);
  return h;
}

int32_t sp__nvtx_event_region(sp_nvtx_domain_t *dom, const nvtxEventAttributes_t *a, int mark) {
  if (!a || !sp__enabled) return -1;
  const uint32_t cat =
      a->size >= offsetof(nvtxEventAttributes_t, category) + sizeof a->category ? a->category : 0;
  switch (a->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII:
    return a->message.ascii ? sp_lookup(dom, a->message.ascii, a->message.ascii, cat, mark) : -1;
  case NVTX_MESSAGE_TYPE_UNICODE: {
    if (!a->message.unicode) return -1;
    char *s = sp__nvtx_utf8(a->message.unicode);
    int32_t h = s ? sp_lookup(dom, a->message.unicode, s, cat, mark) : -1;
    free(s);
    return h;
  }
  case NVTX_MESSAGE_TYPE_REGISTERED:
    return a->message.registered ? sp_lookup(dom, a->message.registered, NULL, cat, mark) : -1;
  default: /* no message: the domain's (and category's) name alone */
    return sp_lookup(dom, "(unnamed)", "(unnamed)", cat, mark);
  }
}
