/* run_meta.c - run metadata: sp_metadata_set and its checks, the session's
 * store, and its records in the spill file.
 *
 * Rules (docs/metrics.md "Run metadata"): keys are 1..255 bytes of UTF-8 without
 * '/' or NUL and not one of the keys the library writes itself; string
 * values are UTF-8 without NUL, at most 65535 bytes; reals are finite; at
 * most 256 keys a session. Setting a key again replaces its value (and
 * kind). Calls outside a session (before sp_setup, after sp_finalize) are
 * refused. Every refusal returns a negative SP_E* code and says why, once
 * per call; past the key cap only the first says so, and sp_finalize
 * counts the rest (a loop of calls must not flood stderr). The session
 * goes on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meta_keys.h"
#include "run_meta.h"
#include "spill_format.h"

static sp_meta_list_t sp_meta;  /* under sp__state.lock */
static int64_t sp_meta_refused; /* calls refused at the key cap this session; under the lock */

static const char *sp_key_problem(const char *key, size_t klen);

/* Keys written into /metadata by the layout (meta_keys.h). */
static const char *const sp_reserved[] = {SP_META_RESERVED_KEYS};

static int sp_meta_find(const sp_meta_list_t *l, const char *key, size_t klen) {
  for (int32_t i = 0; i < l->n; i++)
    if (strlen(l->e[i].key) == klen && memcmp(l->e[i].key, key, klen) == 0) return i;
  return -1;
}

int sp__meta_list_put(sp_meta_list_t *l, const char *key, size_t klen, uint32_t type,
                      const void *val, size_t vlen) {
  char *v = malloc(vlen + 1);
  if (!v) return SP_ENOMEM;
  memcpy(v, val, vlen);
  v[vlen] = '\0';
  int i = sp_meta_find(l, key, klen);
  if (i < 0) {
    if (l->n == l->cap) {
      int32_t ncap = l->cap ? l->cap * 2 : 8;
      sp_meta_entry_t *ne = realloc(l->e, (size_t)ncap * sizeof *ne);
      if (!ne) {
        free(v);
        return SP_ENOMEM;
      }
      l->e = ne;
      l->cap = ncap;
    }
    char *k = malloc(klen + 1);
    if (!k) {
      free(v);
      return SP_ENOMEM;
    }
    memcpy(k, key, klen);
    k[klen] = '\0';
    i = l->n++;
    memset(&l->e[i], 0, sizeof l->e[i]);
    l->e[i].key = k;
  }
  free(l->e[i].val);
  l->e[i].val = v;
  l->e[i].type = type;
  l->e[i].len = (uint32_t)vlen;
  l->e[i].spilled = 0;
  return 0;
}

void sp__meta_list_free(sp_meta_list_t *l) {
  for (int32_t i = 0; i < l->n; i++) {
    free(l->e[i].key);
    free(l->e[i].val);
  }
  free(l->e);
  memset(l, 0, sizeof *l);
}

int sp__meta_list_copy(sp_meta_list_t *dst, const sp_meta_list_t *src) {
  memset(dst, 0, sizeof *dst);
  for (int32_t i = 0; i < src->n; i++) {
    const sp_meta_entry_t *e = &src->e[i];
    int rc = sp__meta_list_put(dst, e->key, strlen(e->key), e->type, e->val, e->len);
    if (rc != 0) {
      sp__meta_list_free(dst);
      return rc;
    }
  }
  return 0;
}

int sp__meta_snapshot(sp_meta_list_t *out) {
  pthread_mutex_lock(&sp__state.lock);
  int rc = sp__meta_list_copy(out, &sp_meta);
  pthread_mutex_unlock(&sp__state.lock);
  return rc;
}

void sp__meta_session_reset(void) {
  pthread_mutex_lock(&sp__state.lock);
  sp__meta_list_free(&sp_meta);
  sp_meta_refused = 0;
  pthread_mutex_unlock(&sp__state.lock);
}

void sp__meta_report_refused(void) {
  pthread_mutex_lock(&sp__state.lock);
  int64_t n = sp_meta_refused;
  pthread_mutex_unlock(&sp__state.lock);
  if (n > 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "%lld sp_metadata_set call(s) were ignored: the session already held %d keys "
            "(SP_ETOOMANY)",
            (long long)n, SP_META_MAX_KEYS);
}

/* META payload: this head, the key's bytes, the value's bytes. */
typedef struct sp_meta_rec {
  uint32_t type;
  uint32_t klen;
  uint32_t vlen;
  uint32_t pad;
} sp_meta_rec_t;

int sp__meta_spill(int (*rec)(uint32_t type, const void *p, size_t n)) {
  for (int32_t i = 0; i < sp_meta.n; i++) {
    sp_meta_entry_t *e = &sp_meta.e[i];
    if (e->spilled) continue;
    size_t klen = strlen(e->key), n = sizeof(sp_meta_rec_t) + klen + e->len;
    char *p = malloc(n);
    if (!p) return SP_ENOMEM;
    sp_meta_rec_t h = {e->type, (uint32_t)klen, e->len, 0};
    memcpy(p, &h, sizeof h);
    memcpy(p + sizeof h, e->key, klen);
    memcpy(p + sizeof h + klen, e->val, e->len);
    int rc = rec(SP_SPILL_META, p, n);
    free(p);
    if (rc != 0) return rc;
    e->spilled = 1;
  }
  return 0;
}

int sp__meta_from_spill(sp_meta_list_t *l, const char *p, size_t n) {
  sp_meta_rec_t h;
  if (n < sizeof h) return SP_ESPILL;
  memcpy(&h, p, sizeof h);
  if (h.klen == 0 || h.klen > SP_META_KEY_MAX || h.vlen > SP_META_VALUE_MAX ||
      n != sizeof h + (size_t)h.klen + h.vlen)
    return SP_ESPILL;
  const char *key = p + sizeof h, *val = key + h.klen;
  if (sp_key_problem(key, h.klen)) return SP_ESPILL;
  if (h.type == SP_META_STR ? !sp__utf8_ok(val, h.vlen)
                            : (h.type != SP_META_INT && h.type != SP_META_REAL) || h.vlen != 8)
    return SP_ESPILL;
  if (sp_meta_find(l, key, h.klen) < 0 && l->n >= SP_META_MAX_KEYS) return SP_ESPILL;
  return sp__meta_list_put(l, key, h.klen, h.type, val, h.vlen);
}

/* Why key cannot be used, or NULL. */
static const char *sp_key_problem(const char *key, size_t klen) {
  if (klen == 0) return "is empty";
  if (klen > SP_META_KEY_MAX) return "is longer than 255 bytes";
  if (memchr(key, '\0', klen)) return "holds a NUL byte";
  if (!sp__utf8_ok(key, klen)) return "is not UTF-8";
  if (memchr(key, '/', klen)) return "holds a '/'";
  for (size_t i = 0; i < sizeof sp_reserved / sizeof sp_reserved[0]; i++)
    if (strlen(sp_reserved[i]) == klen && memcmp(sp_reserved[i], key, klen) == 0)
      return "is one the library writes itself";
  return NULL;
}

static const char *sp_value_problem(uint32_t type, const void *val, size_t vlen) {
  if (type == SP_META_STR) {
    if (!val) return "is NULL";
    if (vlen > SP_META_VALUE_MAX) return "is longer than 65535 bytes";
    if (memchr(val, '\0', vlen)) return "holds a NUL byte";
    if (!sp__utf8_ok(val, vlen)) return "is not UTF-8";
  } else if (type == SP_META_REAL) {
    double d;
    memcpy(&d, val, sizeof d);
    if (!isfinite(d)) return "is not a finite number";
  }
  return NULL;
}

/* The key as it can be shown in a message. */
static int sp_key_shown(const char *key, size_t klen) {
  return sp__utf8_ok(key, klen) ? (int)(klen > 64 ? 64 : klen) : 0;
}

static int sp_meta_set(const char *key, size_t klen, uint32_t type, const void *val, size_t vlen) {
  sp_state_t *st = &sp__state;
  const char *why = !key ? "is NULL" : sp_key_problem(key, klen);
  if (why) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "sp_metadata_set: key '%.*s' %s; ignored (SP_EINVAL)",
            key ? sp_key_shown(key, klen) : 0, key ? key : "", why);
    return SP_EINVAL;
  }
  const int shown = sp_key_shown(key, klen);
  why = sp_value_problem(type, val, vlen);
  if (why) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "sp_metadata_set: the value of '%.*s' %s; ignored (SP_EINVAL)", shown, key, why);
    return SP_EINVAL;
  }
  pthread_mutex_lock(&st->lock);
  int rc = 0;
  if (!st->session) {
    rc = SP_ENOTSETUP;
  } else if (sp_meta_find(&sp_meta, key, klen) < 0 && sp_meta.n >= SP_META_MAX_KEYS) {
    rc = SP_ETOOMANY;
    sp_meta_refused++;
  } else {
    rc = sp__meta_list_put(&sp_meta, key, klen, type, val, vlen);
  }
  pthread_mutex_unlock(&st->lock);
  if (rc == SP_ENOTSETUP)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "sp_metadata_set('%.*s') outside a session (before sp_setup or after sp_finalize); "
            "ignored (SP_ENOTSETUP)",
            shown, key);
  else if (rc == SP_ETOOMANY) /* once; sp_finalize gives the count */
    sp__log(SP_LOG_WARNING, SP_LOG_ONCE_META_FULL,
            "sp_metadata_set('%.*s'): a session holds at most %d keys; ignored (SP_ETOOMANY); "
            "further refusals are counted at sp_finalize",
            shown, key, SP_META_MAX_KEYS);
  else if (rc != 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "sp_metadata_set('%.*s'): %s", shown, key,
            sp_strerror(rc));
  /* A run that dies later keeps it (spill.c's sp__spill_meta_now). */
  if (rc == 0 && sp__up.meta_changed) sp__up.meta_changed();
  return rc;
}

int sp__metadata_set_f(const char *key, size_t klen, int type, const void *val, size_t vlen) {
  if (type != SP_META_STR && type != SP_META_INT && type != SP_META_REAL) return SP_EINVAL;
  if (type != SP_META_STR && vlen != 8) return SP_EINVAL;
  int rc;
  SP_KEEP_ERRNO(rc = sp_meta_set(key, klen, (uint32_t)type, val, vlen));
  return rc;
}

int sp_metadata_set_n(const char *key, size_t key_len, const char *value, size_t value_len) {
  return sp__metadata_set_f(key, key_len, SP_META_STR, value, value_len);
}

int sp_metadata_set(const char *key, const char *value) {
  size_t klen = key ? strnlen(key, SP_META_KEY_MAX + 1) : 0;
  size_t vlen = value ? strnlen(value, SP_META_VALUE_MAX + 1) : 0;
  return sp__metadata_set_f(key, klen, SP_META_STR, value, vlen);
}

int sp_metadata_set_int(const char *key, int64_t value) {
  size_t klen = key ? strnlen(key, SP_META_KEY_MAX + 1) : 0;
  return sp__metadata_set_f(key, klen, SP_META_INT, &value, sizeof value);
}

int sp_metadata_set_real(const char *key, double value) {
  size_t klen = key ? strnlen(key, SP_META_KEY_MAX + 1) : 0;
  return sp__metadata_set_f(key, klen, SP_META_REAL, &value, sizeof value);
}
