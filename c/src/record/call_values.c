/* call_values.c - values per call: sp_call_set_int, _real and the string form.
 *
 * A value belongs to the innermost call open on the calling thread. In the
 * trace that call is known by its region and its event index there (the
 * buffer's spilled events plus its slot: the same number the call has in
 * start_times among its thread's calls of that region). Each thread keeps
 * a log of {region, key, index, value} in the order the values were set,
 * made at its first value (a program that never sets one pays nothing: the
 * start/stop hot path does not look at it). A later value of the same call
 * and key replaces the earlier one: in the log when the earlier one is in
 * the call's last run of values, else when the file is written (the log is
 * read in order, the last value wins).
 *
 * Keys are numbered per region, 0..63, in a table shared by the threads
 * (under its own lock, taken only the first time a thread meets a key in a
 * region); a thread's cache maps (key pointer, region) to the number, and
 * a compare of the key with the table's name decides, as the by-name
 * calls' cache does (a pointer may hold another string later).
 *
 * The log goes to the spill file (SP_SPILL_VALUES, spill_format.h) with
 * the thread's buffers and when it is full, so values survive spills,
 * scope-profiler-merge and crash recovery; only values of calls whose
 * index can no longer change are written (an open call dropped by a
 * mismatched stop moves the later slots of its region down one). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_values.h"
#include "sp_internal.h"
#include "spill_format.h"

#define SP_VKEYS 64         /* keys per region */
#define SP_VKEY_MAX 255     /* bytes of a key */
#define SP_VLOG_FIRST 256   /* entries of a thread's first log */
#define SP_VLOG_SPILL 16384 /* entries (384 KiB) before the log goes to the spill file */
#define SP_VCACHE 64        /* a thread's (key pointer, region) cache, direct-mapped */

typedef sp_spill_value_t sp_vent_t;

/* One region's keys, shared by the threads of the session. */
typedef struct sp_vregion {
  int32_t n;       /* keys */
  int32_t spilled; /* keys [0, spilled) have their SP_VREC_KEY record */
  int64_t lost;    /* values dropped (65th key, memory) */
  int64_t lost_spilled;
  char *name[SP_VKEYS];
  int32_t kind[SP_VKEYS];
} sp_vregion_t;

static pthread_mutex_t sp_vmu = PTHREAD_MUTEX_INITIALIZER;
static sp_vregion_t **sp_vreg; /* by region handle; under sp_vmu */
static int32_t sp_vreg_cap;
static unsigned sp_vreg_session; /* sp__session + 1 the table belongs to */

typedef struct sp_vslot {
  const char *ptr;  /* the caller's key pointer */
  const char *name; /* the table's copy */
  int32_t region;
  int32_t key;
  int64_t len; /* the key's bytes (the slots of keys passed by length) */
} sp_vslot_t;

struct sp_vals {
  unsigned session; /* sp__session + 1 the log belongs to */
  sp_vent_t *e;
  int64_t n, cap;
  char *str; /* string values, NUL-terminated; entries hold offsets */
  int64_t sn, scap;
  sp_vslot_t cache[SP_VCACHE];
  sp_vslot_t lcache[SP_VCACHE]; /* keys passed by length: by (content, region) */
};

/* Set while this thread runs a slow path here: a signal handler's value
 * then is dropped (counted), as hot_path.c does for starts. */
static __thread int sp_vbusy __attribute__((tls_model("initial-exec")));

static void sp_vmisuse(sp_misuse_t kind) {
  __atomic_fetch_add(&sp__state.misuse[kind], 1, __ATOMIC_RELAXED);
}

/* ---- the shared key table ---------------------------------------- */

/* Region h's table (made on demand); under sp_vmu. */
static sp_vregion_t *sp_vregion(int32_t h, int make) {
  if (sp_vreg_session != sp__session + 1u) {
    for (int32_t i = 0; i < sp_vreg_cap; i++) {
      sp_vregion_t *r = sp_vreg[i];
      for (int32_t k = 0; r && k < r->n; k++) free(r->name[k]);
      free(r);
      sp_vreg[i] = NULL;
    }
    sp_vreg_session = sp__session + 1u;
  }
  if (h >= sp_vreg_cap) {
    if (!make) return NULL;
    int32_t ncap = sp_vreg_cap ? sp_vreg_cap : 64;
    while (ncap <= h) ncap *= 2;
    sp_vregion_t **nr = realloc(sp_vreg, (size_t)ncap * sizeof *nr);
    if (!nr) return NULL;
    memset(nr + sp_vreg_cap, 0, (size_t)(ncap - sp_vreg_cap) * sizeof *nr);
    sp_vreg = nr;
    sp_vreg_cap = ncap;
  }
  if (!sp_vreg[h] && make) sp_vreg[h] = calloc(1, sizeof **sp_vreg);
  return sp_vreg[h];
}

/* Key `key` of region h: its number, after adding it with `kind`; -1 past
 * SP_VKEYS (counted, said once), -2 without memory. */
static int32_t sp_vkey_find(int32_t h, const char *key, size_t len, int kind, const char **name,
                            int32_t *key_kind) {
  pthread_mutex_lock(&sp_vmu);
  sp_vregion_t *r = sp_vregion(h, 1);
  int32_t k = -2;
  if (r) {
    for (k = 0; k < r->n && strcmp(r->name[k], key) != 0; k++) {}
    if (k == r->n && r->n == SP_VKEYS) {
      r->lost++;
      k = -1;
    } else if (k == r->n) {
      char *copy = malloc(len + 1);
      if (copy) {
        memcpy(copy, key, len + 1);
        r->name[k] = copy;
        r->kind[k] = kind;
        r->n++;
      } else {
        k = -2;
      }
    }
    if (k >= 0) *name = r->name[k], *key_kind = r->kind[k];
  }
  pthread_mutex_unlock(&sp_vmu);
  return k;
}

int32_t sp__vals_nkeys(int32_t h) {
  pthread_mutex_lock(&sp_vmu);
  const sp_vregion_t *r = sp_vreg_session == sp__session + 1u ? sp_vregion(h, 0) : NULL;
  int32_t n = r ? r->n : 0;
  pthread_mutex_unlock(&sp_vmu);
  return n;
}

const char *sp__vals_key(int32_t h, int32_t k, int32_t *kind) {
  pthread_mutex_lock(&sp_vmu);
  const sp_vregion_t *r = sp_vreg_session == sp__session + 1u ? sp_vregion(h, 0) : NULL;
  const char *name = r && k < r->n ? r->name[k] : NULL;
  *kind = name ? r->kind[k] : 0;
  pthread_mutex_unlock(&sp_vmu);
  return name;
}

int64_t sp__vals_lost_mem(int32_t h) {
  pthread_mutex_lock(&sp_vmu);
  const sp_vregion_t *r = sp_vreg_session == sp__session + 1u ? sp_vregion(h, 0) : NULL;
  int64_t n = r ? r->lost - r->lost_spilled : 0;
  pthread_mutex_unlock(&sp_vmu);
  return n;
}

/* ---- the thread's log -------------------------------------------- */

static void sp_vals_drop(sp_thread_t *t, int32_t h, int64_t index);
static void sp_vals_flush(sp_thread_t *t, int async);

/* thread_buffers.c's calls into this file, filled once (pthread_once:
 * every thread that makes a log has seen them filled). */
static pthread_once_t sp_vhooks_once = PTHREAD_ONCE_INIT;
static void sp_vhooks_fill(void) {
  sp__vals_hooks.drop = sp_vals_drop;
  sp__vals_hooks.flush = sp_vals_flush;
}

/* t's log for this session (emptied when it holds an older one's). */
static struct sp_vals *sp_vals_of(sp_thread_t *t) {
  struct sp_vals *v = t->vals;
  if (!v) {
    pthread_once(&sp_vhooks_once, sp_vhooks_fill);
    v = calloc(1, sizeof *v);
    if (!v) return NULL;
    t->vals = v;
  }
  if (v->session != sp__session + 1u) {
    v->n = v->sn = 0;
    memset(v->cache, 0, sizeof v->cache);
    memset(v->lcache, 0, sizeof v->lcache);
    v->session = sp__session + 1u;
  }
  return v;
}

int64_t sp__vals_mem(const sp_thread_t *t, const sp_vent_t **e, const char **str) {
  const struct sp_vals *v = t ? t->vals : NULL;
  if (!v || v->session != sp__session + 1u) return 0;
  *e = v->e;
  *str = v->str;
  return v->n;
}

/* Lowest event index of region h that may still move on t: its first open
 * slot (INT64_MAX when none is open). */
static int64_t sp_vstable_below(const sp_thread_t *t, int32_t h) {
  int64_t first = INT64_MAX;
  for (int32_t d = 0; d < t->depth; d++)
    if (t->stack[d].region == h && t->stack[d].slot >= 0 && t->stack[d].slot < first)
      first = t->stack[d].slot;
  return first == INT64_MAX || h >= t->nbufs ? first : t->bufs[h].spilled + first;
}

/* Key records of every region not written yet, and counts of lost values. */
static void sp_vflush_keys(void) {
  pthread_mutex_lock(&sp_vmu);
  for (int32_t h = 0; sp_vreg_session == sp__session + 1u && h < sp_vreg_cap; h++) {
    sp_vregion_t *r = sp_vreg[h];
    for (; r && r->spilled < r->n; r->spilled++) {
      const char *name = r->name[r->spilled];
      sp_spill_values_t head = {SP_VREC_KEY,         -1, h, r->spilled,
                                r->kind[r->spilled], 0,  0, (int64_t)strlen(name)};
      if (sp__up.spill_values(&head, sizeof head, name, (size_t)head.len) != 0) break;
    }
    if (r && r->lost > r->lost_spilled) {
      sp_spill_values_t head = {SP_VREC_LOST, -1, h, 0, 0, 0, r->lost - r->lost_spilled, 0};
      if (sp__up.spill_values(&head, sizeof head, NULL, 0) == 0) r->lost_spilled = r->lost;
    }
  }
  pthread_mutex_unlock(&sp_vmu);
}

/* Writes the entries of calls that can no longer move (and their strings)
 * as one record and keeps the others; 0 or an SP_E code. async: the
 * writer thread writes it when it runs (the copy into the page cache cost
 * the recording thread ~45 ns a value: docs/performance.md). */
static int sp_vflush(sp_thread_t *t, struct sp_vals *v, int async) {
  if (v->n == 0) return 0;
  sp_vflush_keys();
  int64_t nout = 0, sout = 0;
  for (int64_t i = 0; i < v->n; i++)
    if (v->e[i].index < sp_vstable_below(t, v->e[i].region)) {
      nout++;
      if (v->e[i].kind == SP_VKIND_STR) sout += (int64_t)strlen(v->str + v->e[i].v.s) + 1;
    }
  if (nout == 0) return 0;
  const size_t blen = (size_t)nout * sizeof *v->e + (size_t)sout;
  sp_spill_values_t head = {SP_VREC_VALUES, t->index, -1, 0, 0, 0, nout, sout};
  char *rec = malloc(sizeof head + blen); /* head, then the body */
  char *body = rec ? rec + sizeof head : NULL;
  char *keep_str = malloc((size_t)(v->sn - sout) + 1);
  if (!rec || !keep_str) {
    free(rec);
    free(keep_str);
    return SP_ENOMEM;
  }
  sp_vent_t *out = (sp_vent_t *)(void *)body;
  char *ostr = body + (size_t)nout * sizeof *v->e;
  int64_t o = 0, os = 0, kept = 0, ks = 0;
  for (int64_t i = 0; i < v->n; i++) {
    sp_vent_t e = v->e[i];
    const int out_now = e.index < sp_vstable_below(t, e.region);
    if (e.kind == SP_VKIND_STR) {
      const char *s = v->str + e.v.s;
      size_t len = strlen(s) + 1;
      memcpy(out_now ? ostr + os : keep_str + ks, s, len);
      e.v.s = out_now ? os : ks;
      *(out_now ? &os : &ks) += (int64_t)len;
    }
    if (out_now)
      out[o++] = e;
    else
      v->e[kept++] = e;
  }
  memcpy(rec, &head, sizeof head);
  int rc = 0;
  if (!async || sp__up.writer_values(rec, sizeof head, blen) != 0) {
    rc = sp__up.spill_values(&head, sizeof head, body, blen);
    free(rec);
  }
  if (rc != 0) { /* kept in memory: the file is written from memory at finalize */
    free(keep_str);
    return rc;
  }
  memcpy(v->str, keep_str, (size_t)ks);
  free(keep_str);
  v->n = kept;
  v->sn = ks;
  return 0;
}

static void sp_vals_flush(sp_thread_t *t, int async) {
  struct sp_vals *v = t->vals;
  if (!v || v->session != sp__session + 1u || !sp__state.cfg.time_trace) return;
  SP_KEEP_ERRNO(sp_vflush(t, v, async));
}

void sp__vals_flush(sp_thread_t *t) { sp_vals_flush(t, 0); }

static void sp_vals_drop(sp_thread_t *t, int32_t h, int64_t index) {
  struct sp_vals *v = t->vals;
  if (!v || v->session != sp__session + 1u) return;
  int64_t kept = 0;
  for (int64_t i = 0; i < v->n; i++) {
    sp_vent_t e = v->e[i];
    if (e.region == h && e.index == index) continue;
    if (e.region == h && e.index > index) e.index--;
    v->e[kept++] = e;
  }
  v->n = kept; /* its strings stay in the pool until the next spill */
}

/* Room for one more entry and `slen` bytes of string. */
static int sp_vroom(sp_thread_t *t, struct sp_vals *v, size_t slen) {
  if (v->n == v->cap && v->cap >= SP_VLOG_SPILL && sp__state.cfg.flush_to_disk) sp_vflush(t, v, 1);
  if (v->n == v->cap) {
    int64_t ncap = v->cap ? v->cap * 2 : SP_VLOG_FIRST;
    sp_vent_t *ne = realloc(v->e, (size_t)ncap * sizeof *ne);
    if (!ne) return SP_ENOMEM;
    v->e = ne;
    v->cap = ncap;
  }
  if (slen > 0 && v->sn + (int64_t)slen > v->scap) {
    int64_t ncap = v->scap ? v->scap * 2 : 4096;
    while (ncap < v->sn + (int64_t)slen) ncap *= 2;
    char *ns = realloc(v->str, (size_t)ncap);
    if (!ns) return SP_ENOMEM;
    v->str = ns;
    v->scap = ncap;
  }
  return 0;
}

static inline sp_vslot_t *sp_vslot(struct sp_vals *v, const char *key, int32_t h) {
  uint64_t k = ((uint64_t)(uintptr_t)key >> 3 ^ (uint64_t)h * 0x9E3779B1u) * 0x9E3779B97F4A7C15ull;
  return &v->cache[k >> 58]; /* SP_VCACHE == 64 */
}

/* Whether the caller's C string key is name (len bytes, its copy in the
 * key table): its len + 1 bytes, NUL included, against name's. Short keys,
 * the usual ones, are compared with two overlapping words from each end
 * (strcmp through the PLT was half the cost of a value: docs/performance.md);
 * the loads stay inside key's page, which holds key[0], so a shorter string
 * now at the pointer is never read past its page (the bytes after its NUL
 * only make the compare fail). Elsewhere strcmp. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang */
#define SP_VKEY_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SP_VKEY_ASAN)
#define SP_VKEY_WORDS 0 /* ASan would see the bytes past a shorter string's NUL: strcmp */
#else
#define SP_VKEY_WORDS 1
#endif
static inline int sp_vkey_is(const char *name, int64_t len, const char *key) {
  const size_t n = (size_t)len + 1;
  const int in_page = SP_VKEY_WORDS && ((uintptr_t)key & 4095) <= 4096 - n;
  if (n >= 8 && n <= 16 && in_page) {
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, name, 8);
    memcpy(&b0, key, 8);
    memcpy(&a1, name + n - 8, 8);
    memcpy(&b1, key + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4 && n < 8 && in_page) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, name, 4);
    memcpy(&b0, key, 4);
    memcpy(&a1, name + n - 4, 4);
    memcpy(&b1, key + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  return strcmp(name, key) == 0;
}

/* The slot of a key passed by length (Fortran, C++ std::string_view,
 * Python): by its bytes, as its pointer may be a temporary's. */
static inline sp_vslot_t *sp_vlslot(struct sp_vals *v, const char *key, size_t len, int32_t h) {
  uint64_t k = 0xcbf29ce484222325ull ^ (uint64_t)h * 0x9E3779B1u; /* FNV-1a */
  for (size_t i = 0; i < len; i++) k = (k ^ (unsigned char)key[i]) * 0x100000001b3ull;
  return &v->lcache[(k * 0x9E3779B97F4A7C15ull) >> 58]; /* SP_VCACHE == 64 */
}

/* The value as its entry holds it (strings: copied into the pool). */
typedef struct sp_vin {
  int kind;
  int64_t i;
  double d;
  const char *s;
  size_t slen;
} sp_vin_t;

/* Appends (or replaces) the value of key k for the call (h, index). */
static int sp_vput(sp_thread_t *t, struct sp_vals *v, int32_t h, int64_t index, int32_t k,
                   const sp_vin_t *in) {
  sp_vent_t *hit = NULL;
  for (int64_t i = v->n - 1; i >= 0 && v->e[i].region == h && v->e[i].index == index; i--)
    if (v->e[i].key == k) {
      hit = &v->e[i];
      break;
    }
  if (!hit || in->kind == SP_VKIND_STR) {
    int rc = sp_vroom(t, v, in->kind == SP_VKIND_STR ? in->slen + 1 : 0);
    if (rc != 0) return rc;
    if (hit) { /* a string replaces in place, its old bytes stay until the next spill */
      hit = NULL;
      for (int64_t i = v->n - 1; i >= 0 && v->e[i].region == h && v->e[i].index == index; i--)
        if (v->e[i].key == k) hit = &v->e[i];
    }
  }
  sp_vent_t *e = hit ? hit : &v->e[v->n++];
  e->region = h;
  e->key = (int16_t)k;
  e->kind = (uint8_t)in->kind;
  e->pad = 0;
  e->index = index;
  if (in->kind == SP_VKIND_INT) {
    e->v.i = in->i;
  } else if (in->kind == SP_VKIND_REAL) {
    e->v.d = in->d;
  } else {
    memcpy(v->str + v->sn, in->s, in->slen);
    v->str[v->sn + (int64_t)in->slen] = '\0';
    e->v.s = v->sn;
    v->sn += (int64_t)in->slen + 1;
  }
  return 0;
}

/* ---- the calls ----------------------------------------------------- */

static int sp_vbad_key(const char *key, size_t len) {
  sp_vmisuse(SP_MISUSE_BAD_NAME);
  sp__log(SP_LOG_WARNING, SP_LOG_ONCE_BAD_NAME, "sp_call_set: key is %s; ignored",
          !key       ? "NULL"
          : len == 0 ? "empty"
                     : "longer than 255 bytes");
  return SP_EINVAL;
}

static int sp_vno_call(void) {
  sp_vmisuse(SP_MISUSE_VALUE_NO_CALL);
  static int told;
  if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "sp_call_set: no call is open on this thread; the value is ignored (counted as "
            "SP_MISUSE_VALUE_NO_CALL, this message is not repeated)");
  return SP_EINVAL;
}

static int sp_vtoo_many(int32_t h) {
  sp_vmisuse(SP_MISUSE_VALUES_LOST);
  static int told;
  if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "sp_call_set: region '%s' has 64 keys already; values of further keys are dropped "
            "(counted as SP_MISUSE_VALUES_LOST and in call_values@values_lost, this message is "
            "not repeated)",
            sp__region_get(h)->name);
  return SP_ETOOMANY;
}

/* A value into profile mode's figures of the innermost call's path: a
 * number as a float64 (NaN: not set, as in the trace), a string counted
 * only (under a string key; a string under a numeric key is dropped and
 * counted in SP_MISUSE_VALUES_LOST, as the trace's writer drops it). */
static int sp_vagg(sp_thread_t *t, int32_t k, int32_t key_kind, const sp_vin_t *in) {
  double x = in->kind == SP_VKIND_INT ? (double)in->i : in->kind == SP_VKIND_REAL ? in->d : 0.0;
  if (in->kind == SP_VKIND_REAL && isnan(x)) return 0;
  if ((in->kind == SP_VKIND_STR) != (key_kind == SP_VKIND_STR) && in->kind == SP_VKIND_STR) {
    sp_vmisuse(SP_MISUSE_VALUES_LOST);
    return 0;
  }
  return sp__agg_val_set(t, t->depth - 1, k, x);
}

/* Everything the fast path below does not do: the first value of a key in
 * a region on this thread, a full log, misuse. */
static __attribute__((noinline)) int sp_vset_slow(const char *key, size_t klen, int cstr,
                                                  const sp_vin_t *in) {
  if (!__atomic_load_n(&sp__state.session, __ATOMIC_RELAXED)) return SP_ENOTSETUP;
  if (!key || klen == 0 || klen > SP_VKEY_MAX || memchr(key, '\0', klen))
    return sp_vbad_key(key, klen);
  if (in->kind == SP_VKIND_STR && !in->s) return sp_vbad_key(key, klen);
  if (__atomic_load_n(&sp__mode, __ATOMIC_ACQUIRE) == SP_MODE_OFF) return 0; /* quiet: off */
  sp_thread_t *t = sp__tls;
  if (t && sp__skips_open() > 0) return 0; /* a call left out of the trace, no frame (hot_path.c) */
  if (!t || t->depth == 0) return sp_vno_call();
  const sp_frame_t *f = &t->stack[t->depth - 1];
  const int trace = f->slot >= 0 && sp__state.cfg.time_trace;
  const int agg = t->agg && sp__state.cfg.aggregate; /* profile mode: every call counts */
  if (!trace && !agg) return 0;                      /* not in the trace */
  if (sp_vbusy) {
    sp_vmisuse(SP_MISUSE_REENTERED);
    return SP_EBUSY;
  }
  sp_vbusy = 1;
  int rc = SP_ENOMEM;
  struct sp_vals *v = sp_vals_of(t);
  char kbuf[SP_VKEY_MAX + 1];
  memcpy(kbuf, key, klen);
  kbuf[klen] = '\0';
  const char *name = NULL;
  int32_t kkind = 0;
  int32_t k = v ? sp_vkey_find(f->region, kbuf, klen, in->kind, &name, &kkind) : -2;
  if (k == -1) {
    rc = sp_vtoo_many(f->region);
  } else if (k >= 0) {
    /* A C string: cached by its pointer; a key by length: by its bytes. */
    sp_vslot_t *s = cstr ? sp_vslot(v, key, f->region) : sp_vlslot(v, key, klen, f->region);
    *s = (sp_vslot_t){cstr ? key : NULL, name, f->region, k, (int64_t)klen};
    rc = trace ? sp_vput(t, v, f->region, t->bufs[f->region].spilled + f->slot, k, in) : 0;
    if (rc == 0 && agg) rc = sp_vagg(t, k, kkind, in);
  }
  if (rc == SP_ENOMEM) {
    sp_vmisuse(SP_MISUSE_VALUES_LOST);
    sp__log(SP_LOG_ERROR, SP_LOG_ONCE_NOMEM, "out of memory: calls are not recorded");
  }
  sp_vbusy = 0;
  return rc;
}

/* The fast path's write, for the key of slot s (checked by the caller)
 * in the innermost call of t: 1 done, 0 not (then the slow path). A leaf:
 * no lock, no allocation. */
static inline __attribute__((always_inline)) int sp_vhit(sp_thread_t *t, struct sp_vals *v,
                                                         const sp_frame_t *f, const sp_vslot_t *s,
                                                         const sp_vin_t *in) {
  const int32_t h = f->region;
  if (SP_LIKELY(f->slot >= 0 && v->n < v->cap && !t->agg)) { /* the trace alone */
    const int64_t index = t->bufs[h].spilled + f->slot;
    sp_vent_t *e = &v->e[v->n];
    for (int64_t i = v->n - 1; i >= 0 && v->e[i].region == h && v->e[i].index == index; i--)
      if (v->e[i].key == s->key) {
        e = &v->e[i];
        break;
      }
    if (e == &v->e[v->n]) v->n++;
    *e = (sp_vent_t){h, (int16_t)s->key, (uint8_t)in->kind, 0, index, {.i = in->i}};
    if (in->kind == SP_VKIND_REAL) e->v.d = in->d;
    return 1;
  }
  if (f->slot < 0 && t->agg) { /* profile mode alone, or a call left out of the trace */
    const double x = in->kind == SP_VKIND_INT ? (double)in->i : in->d;
    return isnan(x) || sp__agg_val_fast(t, t->depth - 1, s->key, x);
  }
  return 0;
}

/* The thread's log when the fast path may run: a call open, a log of this
 * session, the library on, not inside a slow path here; else NULL. */
static inline struct sp_vals *sp_vready(sp_thread_t *t) {
  struct sp_vals *v = t ? t->vals : NULL;
  if (SP_LIKELY(v && t->depth > 0 && sp__skips_open() <= 0 && v->session == sp__session + 1u &&
                __atomic_load_n(&sp__mode, __ATOMIC_ACQUIRE) != SP_MODE_OFF && !sp_vbusy))
    return v;
  return NULL;
}

/* The fast path: a key this thread has set in this region before, a call
 * in the trace (or in profile mode), room in the log. */
static inline __attribute__((always_inline)) int sp_vset(const char *key, const sp_vin_t *in) {
  sp_thread_t *t = sp__tls;
  struct sp_vals *v = sp_vready(t);
  if (SP_LIKELY(v && key && in->kind != SP_VKIND_STR)) {
    const sp_frame_t *f = &t->stack[t->depth - 1];
    const sp_vslot_t *s = sp_vslot(v, key, f->region);
    if (SP_LIKELY(s->ptr == key && s->region == f->region && sp_vkey_is(s->name, s->len, key) &&
                  sp_vhit(t, v, f, s, in)))
      return 0;
  }
  int saved_errno = errno;
  int rc = sp_vset_slow(key, key ? strnlen(key, SP_VKEY_MAX + 1) : 0, 1, in);
  errno = saved_errno;
  return rc;
}

/* The inside mark of hot_path.c's sp_enter/sp_leave: a second sp_setup
 * waits for a thread inside a call before it discards the buffers this
 * reads (session_quiesce.c). A thread without a record has nothing here. */
static inline sp_thread_t *sp_vinside(int delta) {
  sp_thread_t *t = sp__tls;
  if (delta < 0) __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (SP_LIKELY(t != NULL))
    __atomic_store_n(&t->inside, __atomic_load_n(&t->inside, __ATOMIC_RELAXED) + delta,
                     delta > 0 ? __ATOMIC_RELAXED : __ATOMIC_RELEASE);
  if (delta > 0) __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return t;
}

static inline __attribute__((always_inline)) int sp_vset_marked(const char *key,
                                                                const sp_vin_t *in) {
  sp_vinside(1);
  int rc = sp_vset(key, in);
  sp_vinside(-1);
  return rc;
}

int sp_call_set_int(const char *key, int64_t value) {
  const sp_vin_t in = {SP_VKIND_INT, value, 0.0, NULL, 0};
  return sp_vset_marked(key, &in);
}

int sp_call_set_real(const char *key, double value) {
  const sp_vin_t in = {SP_VKIND_REAL, 0, value, NULL, 0};
  return sp_vset_marked(key, &in);
}

int sp_call_set(const char *key, const char *value) {
  const sp_vin_t in = {SP_VKIND_STR, 0, 0.0, value, value ? strlen(value) : 0};
  return sp_vset_marked(key, &in);
}

int sp__call_set_f(const char *key, size_t klen, int type, const void *val, size_t vlen) {
  sp_vin_t in = {0, 0, 0.0, NULL, 0};
  if (type == 1) {
    in = (sp_vin_t){SP_VKIND_STR, 0, 0.0, val, vlen};
    if (val && memchr(val, '\0', vlen)) return SP_EINVAL;
  } else if (type == 2 && val && vlen == 8) {
    memcpy(&in.i, val, 8);
    in.kind = SP_VKIND_INT;
  } else if (type == 3 && val && vlen == 8) {
    memcpy(&in.d, val, 8);
    in.kind = SP_VKIND_REAL;
  } else {
    return SP_EINVAL;
  }
  while (klen > 0 && key && (key[klen - 1] == ' ' || key[klen - 1] == '\0')) klen--;
  sp_thread_t *t = sp_vinside(1);
  /* The fast path of a key by length: its slot by its bytes, no lock (it
   * took sp_vmu each time before: docs/performance.md). */
  struct sp_vals *v = sp_vready(t);
  if (v && key && klen > 0 && klen <= SP_VKEY_MAX && in.kind != SP_VKIND_STR) {
    const sp_frame_t *f = &t->stack[t->depth - 1];
    const sp_vslot_t *s = sp_vlslot(v, key, klen, f->region);
    if (s->name && s->region == f->region && s->len == (int64_t)klen &&
        memcmp(s->name, key, klen) == 0 && sp_vhit(t, v, f, s, &in)) {
      sp_vinside(-1);
      return 0;
    }
  }
  int saved_errno = errno;
  int rc = sp_vset_slow(key, klen, 0, &in);
  sp_vinside(-1);
  errno = saved_errno;
  return rc;
}
