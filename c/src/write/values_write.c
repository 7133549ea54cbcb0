/* values_write.c - values per call into the file (docs/values.md).
 *
 * A rank's values are its spill file's SP_SPILL_VALUES records, in order,
 * then what its threads still hold in memory (call_values.c). Each names
 * its call by (region, thread, event index); the call's place in
 * start_times is its thread's base (the region's events of lower threads:
 * raw_write.c writes them thread by thread, spilled then in memory) plus
 * that index. Read in order, a later value of a call and key replaces an
 * earlier one. Each rank packs its columns (one per region and key, a
 * value per call); rank 0 writes them, as the samples
 * (samples_write.c): rank<N>/regions/<name>/call_values/<key> in the
 * per-rank layout, call_values/<key> over all events in the columnar one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "par_gather.h"
#include "h5_attr.h"
#include "values_write.h"

#define SP_VK 64 /* keys per region (call_values.c) */

/* One column being filled: the values of key k of plan region i. */
typedef struct sp_vcol {
  int kind; /* SP_VKIND_* of the column: its key's first */
  int64_t n;
  int64_t *iv;
  double *dv;
  char **sv;
} sp_vcol_t;

/* A rank's key names per handle (spilled records, then memory). */
typedef struct sp_vkeys {
  char *name[SP_VK];
  int32_t kind[SP_VK];
  int64_t lost;
} sp_vkeys_t;

typedef struct sp_vbuild {
  const sp_local_t *l;
  int32_t nh;       /* handles covered by keys and imap */
  sp_vkeys_t *keys; /* [nh] */
  int32_t *imap;    /* handle -> plan region, -1 */
  int32_t nt;       /* threads */
  int64_t *cnt;     /* [nregions * nt] events of region i on thread t */
  int64_t *base;    /* [nregions * nt] its first place in start_times */
  sp_vcol_t **cols; /* [nregions * SP_VK] */
  int64_t *lost;    /* [nregions] values dropped or not convertible */
} sp_vbuild_t;

/* A record's payload (head, body); NULL when it cannot be read. */
static char *sp_vrecord(const sp_spill_file_t *f, const sp_spill_chunk_t *c, sp_spill_values_t *h) {
  char *p = malloc((size_t)c->n);
  if (!p || sp__pread_full(f->fd, p, (size_t)c->n, c->offset) != 0) {
    free(p);
    return NULL;
  }
  memcpy(h, p, sizeof *h);
  return p;
}

static void sp_vkey_set(sp_vbuild_t *b, int32_t h, int32_t k, const char *name, size_t len,
                        int32_t kind) {
  if (h < 0 || h >= b->nh || k < 0 || k >= SP_VK || b->keys[h].name[k]) return;
  char *c = malloc(len + 1);
  if (!c) return;
  memcpy(c, name, len);
  c[len] = '\0';
  b->keys[h].name[k] = c;
  b->keys[h].kind[k] = kind;
}

/* Keys and lost counts: spilled records, then this session's memory. */
static void sp_vkeys_read(sp_vbuild_t *b) {
  const sp_spill_file_t *f = &b->l->spill;
  for (int64_t c = 0; f->fd >= 0 && c < f->nvchunks; c++) {
    sp_spill_values_t h;
    char *p = sp_vrecord(f, &f->vchunks[c], &h);
    if (!p) continue;
    const int64_t body = f->vchunks[c].n - (int64_t)sizeof h;
    if (h.what == SP_VREC_KEY && h.len == body && h.len <= 255)
      sp_vkey_set(b, h.region, h.key, p + sizeof h, (size_t)h.len, h.kind);
    else if (h.what == SP_VREC_LOST && h.region >= 0 && h.region < b->nh && h.n > 0)
      b->keys[h.region].lost += h.n;
    free(p);
  }
  if (!b->l->threads) return;
  for (int32_t h = 0; h < b->nh; h++) {
    for (int32_t k = 0; k < sp__vals_nkeys(h) && k < SP_VK; k++) {
      int32_t kind;
      const char *name = sp__vals_key(h, k, &kind);
      if (name) sp_vkey_set(b, h, k, name, strlen(name), kind);
    }
    b->keys[h].lost += sp__vals_lost_mem(h);
  }
}

/* Events of each (region, thread), and where each thread's start. */
static int sp_vcounts(sp_vbuild_t *b) {
  const sp_local_t *l = b->l;
  const int32_t nr = l->plan.nregions;
  int32_t nt = l->threads ? l->nthreads : 0;
  for (int64_t c = 0; c < l->spill.nchunks; c++)
    if (l->spill.chunks[c].thread >= nt) nt = l->spill.chunks[c].thread + 1;
  b->nt = nt > 0 ? nt : 1;
  b->cnt = calloc((size_t)nr * (size_t)b->nt + 1, sizeof *b->cnt);
  b->base = calloc((size_t)nr * (size_t)b->nt + 1, sizeof *b->base);
  if (!b->cnt || !b->base) return SP_ENOMEM;
  for (int64_t c = 0; c < l->spill.nchunks; c++) {
    const sp_spill_chunk_t *ch = &l->spill.chunks[c];
    if (ch->region >= 0 && ch->region < b->nh && b->imap[ch->region] >= 0)
      b->cnt[(int64_t)b->imap[ch->region] * b->nt + ch->thread] += ch->n;
  }
  for (int32_t i = 0; l->threads && i < nr; i++)
    for (int32_t t = 0; t < l->nthreads; t++) {
      const sp_thread_t *th = l->threads[t];
      if (th && l->handles[i] < th->nbufs)
        b->cnt[(int64_t)i * b->nt + t] += th->bufs[l->handles[i]].n;
    }
  for (int32_t i = 0; i < nr; i++) {
    int64_t at = 0;
    for (int32_t t = 0; t < b->nt; t++) {
      b->base[(int64_t)i * b->nt + t] = at;
      at += b->cnt[(int64_t)i * b->nt + t];
    }
  }
  return 0;
}

static sp_vcol_t *sp_vcol(sp_vbuild_t *b, int32_t i, int32_t h, int k) {
  sp_vcol_t **slot = &b->cols[(int64_t)i * SP_VK + k];
  if (*slot) return *slot;
  const int kind = b->keys[h].kind[k];
  const int64_t n = b->l->plan.regions[i].nevents;
  sp_vcol_t *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->kind = kind;
  c->n = n;
  if (kind == SP_VKIND_INT) c->iv = malloc((size_t)(n ? n : 1) * sizeof *c->iv);
  if (kind == SP_VKIND_REAL) c->dv = malloc((size_t)(n ? n : 1) * sizeof *c->dv);
  if (kind == SP_VKIND_STR) c->sv = calloc((size_t)(n ? n : 1), sizeof *c->sv);
  if (!c->iv && !c->dv && !c->sv) {
    free(c);
    return NULL;
  }
  for (int64_t j = 0; c->iv && j < n; j++) c->iv[j] = INT64_MIN;
  for (int64_t j = 0; c->dv && j < n; j++) c->dv[j] = NAN;
  return *slot = c;
}

/* One value into its column, converted to the column's kind where exact;
 * 0, or 1 when it was dropped. */
static int sp_vapply(sp_vbuild_t *b, int32_t thread, const sp_spill_value_t *e, const char *str,
                     int64_t slen) {
  const int32_t h = e->region;
  if (h < 0 || h >= b->nh || b->imap[h] < 0 || thread < 0 || thread >= b->nt || e->key < 0 ||
      e->key >= SP_VK || !b->keys[h].name[e->key])
    return 1;
  const int32_t i = b->imap[h];
  if (e->index < 0 || e->index >= b->cnt[(int64_t)i * b->nt + thread]) return 1;
  sp_vcol_t *c = sp_vcol(b, i, h, e->key);
  if (!c) return 1;
  const int64_t pos = b->base[(int64_t)i * b->nt + thread] + e->index;
  if (pos >= c->n) return 1;
  if (c->kind == SP_VKIND_STR) {
    if (e->kind != SP_VKIND_STR || e->v.s < 0 || e->v.s >= slen ||
        !memchr(str + e->v.s, 0, (size_t)(slen - e->v.s)))
      return 1;
    char *s = strdup(str + e->v.s);
    if (!s) return 1;
    free(c->sv[pos]);
    c->sv[pos] = s;
  } else if (c->kind == SP_VKIND_INT) {
    if (e->kind == SP_VKIND_INT) {
      c->iv[pos] = e->v.i;
    } else if (e->kind == SP_VKIND_REAL && e->v.d >= -9.2e18 && e->v.d <= 9.2e18 &&
               (double)(int64_t)e->v.d == e->v.d) {
      c->iv[pos] = (int64_t)e->v.d;
    } else {
      return 1;
    }
  } else {
    if (e->kind == SP_VKIND_REAL) {
      c->dv[pos] = e->v.d;
    } else if (e->kind == SP_VKIND_INT && (int64_t)(double)e->v.i == e->v.i &&
               e->v.i != INT64_MAX) {
      c->dv[pos] = (double)e->v.i;
    } else {
      return 1;
    }
  }
  return 0;
}

static void sp_vapply_all(sp_vbuild_t *b, int32_t thread, const sp_spill_value_t *e, int64_t n,
                          const char *str, int64_t slen) {
  for (int64_t j = 0; j < n; j++) {
    sp_spill_value_t v;
    memcpy(&v, &e[j], sizeof v); /* a record's body is not aligned for it */
    if (sp_vapply(b, thread, &v, str, slen) && v.region >= 0 && v.region < b->nh &&
        b->imap[v.region] >= 0)
      b->lost[b->imap[v.region]]++;
  }
}

static void sp_vvalues_read(sp_vbuild_t *b) {
  const sp_spill_file_t *f = &b->l->spill;
  for (int64_t c = 0; f->fd >= 0 && c < f->nvchunks; c++) {
    sp_spill_values_t h;
    char *p = sp_vrecord(f, &f->vchunks[c], &h);
    if (!p) continue;
    const int64_t body = f->vchunks[c].n - (int64_t)sizeof h;
    if (h.what == SP_VREC_VALUES && h.n >= 0 && h.len >= 0 &&
        h.n <= body / (int64_t)sizeof(sp_spill_value_t) &&
        h.n * (int64_t)sizeof(sp_spill_value_t) + h.len == body) {
      const char *ents = p + sizeof h;
      sp_vapply_all(b, h.thread, (const sp_spill_value_t *)(const void *)ents, h.n,
                    ents + h.n * (int64_t)sizeof(sp_spill_value_t), h.len);
    }
    free(p);
  }
  for (int32_t t = 0; b->l->threads && t < b->l->nthreads; t++) {
    const sp_spill_value_t *e = NULL;
    const char *str = NULL;
    int64_t n = sp__vals_mem(b->l->threads[t], &e, &str);
    if (n > 0) sp_vapply_all(b, t, e, n, str, INT64_MAX / 2);
  }
}

/* ---- the packed columns: what a rank sends to rank 0 ---- */

typedef struct sp_vhead {
  int32_t kind; /* SP_VKIND_*; 0: no column, only the region's lost count */
  int32_t rlen; /* region name bytes */
  int32_t klen; /* key bytes */
  int32_t pad;
  int64_t n;    /* values */
  int64_t base; /* the region's first event among the rank's (columnar) */
  int64_t lost; /* the region's dropped values */
  int64_t sbytes;
} sp_vhead_t;

#define SP_PAD8(x) (((x) + 7) & ~(int64_t)7)

static int64_t sp_vcol_bytes(const sp_vcol_t *c, int64_t *sbytes) {
  *sbytes = 0;
  if (!c) return 0;
  if (c->kind != SP_VKIND_STR) return c->n * 8;
  for (int64_t j = 0; j < c->n; j++) *sbytes += c->sv[j] ? (int64_t)strlen(c->sv[j]) : 0;
  return c->n * 8 + SP_PAD8(*sbytes);
}

/* Appends one column (or a lost-only head) at *at of buf (NULL: sizes). */
static int64_t sp_vput(char *buf, int64_t at, const sp_plan_region_t *r, const char *key,
                       const sp_vcol_t *c, int64_t base, int64_t lost) {
  int64_t sb;
  const int64_t data = sp_vcol_bytes(c, &sb);
  sp_vhead_t h = {c ? c->kind : 0,
                  (int32_t)r->len,
                  key ? (int32_t)strlen(key) : 0,
                  0,
                  c ? c->n : 0,
                  base,
                  lost,
                  sb};
  const int64_t len = (int64_t)sizeof h + SP_PAD8(h.rlen) + SP_PAD8(h.klen) + data;
  if (!buf) return at + len;
  char *p = buf + at;
  memcpy(p, &h, sizeof h);
  p += sizeof h;
  memcpy(p, r->name, (size_t)h.rlen);
  p += SP_PAD8(h.rlen);
  if (h.klen) memcpy(p, key, (size_t)h.klen);
  p += SP_PAD8(h.klen);
  if (c && c->kind == SP_VKIND_INT) memcpy(p, c->iv, (size_t)c->n * 8);
  if (c && c->kind == SP_VKIND_REAL) memcpy(p, c->dv, (size_t)c->n * 8);
  if (c && c->kind == SP_VKIND_STR) {
    char *s = p + c->n * 8;
    for (int64_t j = 0; j < c->n; j++) {
      const int64_t k = c->sv[j] ? (int64_t)strlen(c->sv[j]) : 0;
      memcpy(p + j * 8, &k, 8);
      if (k) memcpy(s, c->sv[j], (size_t)k);
      s += k;
    }
  }
  return at + len;
}

/* The blob: int64 events of the rank, int64 heads, then the heads. */
static int sp_vserialize(const sp_vbuild_t *b, char **out, int64_t *len) {
  const sp_local_t *l = b->l;
  int64_t total = 16, nhead = 0;
  for (int pass = 0; pass < 2; pass++) {
    int64_t at = 16, base = 0;
    for (int32_t i = 0; i < l->plan.nregions; i++) {
      const sp_plan_region_t *r = &l->plan.regions[i];
      const int32_t h = l->handles[i];
      const int64_t lost = b->lost[i] + (h < b->nh ? b->keys[h].lost : 0);
      int any = 0;
      for (int k = 0; k < SP_VK; k++) {
        const sp_vcol_t *c = b->cols[(int64_t)i * SP_VK + k];
        if (!c) continue;
        at = sp_vput(pass ? *out : NULL, at, r, b->keys[h].name[k], c, base, lost);
        any = 1;
        nhead += !pass;
      }
      if (!any && lost > 0) {
        at = sp_vput(pass ? *out : NULL, at, r, NULL, NULL, base, lost);
        nhead += !pass;
      }
      base += r->nevents;
    }
    if (!pass) {
      total = at;
      if (nhead == 0) {
        *out = NULL;
        *len = 0;
        return 0;
      }
      *out = malloc((size_t)total);
      if (!*out) return SP_ENOMEM;
      memcpy(*out, &base, 8);
      memcpy(*out + 8, &nhead, 8);
    }
  }
  *len = total;
  return 0;
}

static void sp_vbuild_free(sp_vbuild_t *b) {
  for (int32_t h = 0; b->keys && h < b->nh; h++)
    for (int k = 0; k < SP_VK; k++) free(b->keys[h].name[k]);
  for (int64_t j = 0; b->cols && j < (int64_t)b->l->plan.nregions * SP_VK; j++) {
    sp_vcol_t *c = b->cols[j];
    if (!c) continue;
    for (int64_t v = 0; c->sv && v < c->n; v++) free(c->sv[v]);
    free(c->iv);
    free(c->dv);
    free(c->sv);
    free(c);
  }
  free(b->keys);
  free(b->imap);
  free(b->cnt);
  free(b->base);
  free(b->cols);
  free(b->lost);
}

/* This rank's values (spill records, then memory when l->threads) as the
 * blob rank 0 writes; *len 0 when it has none. The caller frees *blob. */
/* No value and no lost count anywhere: the blob would be empty. Its tables
 * are 840 bytes per handle (about 0.8 MiB of fresh pages at 1,000 regions),
 * which cost a rank 0.5 ms of a 4-ms columnar finalize for nothing
 * (docs/performance.md, "the columnar finalize's CPU"). */
static int sp_values_none(const sp_local_t *l, int32_t nh) {
  if (l->spill.nvchunks > 0) return 0;
  for (int32_t t = 0; l->threads && t < l->nthreads; t++) {
    const sp_spill_value_t *e = NULL;
    const char *str = NULL;
    if (sp__vals_mem(l->threads[t], &e, &str) > 0) return 0;
  }
  for (int32_t h = 0; l->threads && h < nh; h++)
    if (sp__vals_lost_mem(h) > 0) return 0;
  return 1;
}

/* The region handles of l's values: one past the highest. */
static int32_t sp_vhandles(const sp_local_t *l) {
  int32_t nh = l->spill.nnames;
  for (int32_t i = 0; i < l->plan.nregions; i++)
    if (l->handles[i] >= nh) nh = l->handles[i] + 1;
  return nh;
}

int sp__values_maybe(const sp_local_t *l) {
  if (l->spill.nvchunks == 0 && !l->threads) return 0;
  return !sp_values_none(l, sp_vhandles(l));
}

static int sp_values_pack(const sp_local_t *l, char **blob, int64_t *len) {
  *blob = NULL;
  *len = 0;
  if (!sp__values_maybe(l)) return 0;
  sp_vbuild_t b = {.l = l};
  const int32_t nh = sp_vhandles(l);
  b.nh = nh;
  const int32_t nr = l->plan.nregions;
  b.keys = calloc((size_t)nh + 1, sizeof *b.keys);
  b.imap = malloc(((size_t)nh + 1) * sizeof *b.imap);
  b.cols = calloc((size_t)nr * SP_VK + 1, sizeof *b.cols);
  b.lost = calloc((size_t)nr + 1, sizeof *b.lost);
  int rc = b.keys && b.imap && b.cols && b.lost ? 0 : SP_ENOMEM;
  for (int32_t h = 0; rc == 0 && h < nh; h++) b.imap[h] = -1;
  for (int32_t i = 0; rc == 0 && i < nr; i++) b.imap[l->handles[i]] = i;
  if (rc == 0) rc = sp_vcounts(&b);
  if (rc == 0) {
    sp_vkeys_read(&b);
    sp_vvalues_read(&b);
    rc = sp_vserialize(&b, blob, len);
  }
  sp_vbuild_free(&b);
  return rc;
}

/* ---- rank 0: the columns into the file ---- */

/* A column as read back from a blob. */
typedef struct sp_vview {
  sp_vhead_t h;
  const char *region, *key; /* not NUL-terminated: h.rlen, h.klen */
  const char *data;
} sp_vview_t;

/* The next head of a blob at *at (len bytes); 0 at its end or on damage. */
static int sp_vnext(const char *all, int64_t len, int64_t *at, sp_vview_t *v) {
  if (*at + (int64_t)sizeof v->h > len) return 0;
  memcpy(&v->h, all + *at, sizeof v->h);
  const sp_vhead_t *h = &v->h;
  if (h->rlen < 0 || h->klen < 0 || h->klen > 255 || h->n < 0 || h->sbytes < 0) return 0;
  const int64_t data =
      h->kind == 0 ? 0 : h->n * 8 + (h->kind == SP_VKIND_STR ? SP_PAD8(h->sbytes) : 0);
  const int64_t need = (int64_t)sizeof *h + SP_PAD8(h->rlen) + SP_PAD8(h->klen) + data;
  if (need > len - *at) return 0;
  v->region = all + *at + sizeof *h;
  v->key = v->region + SP_PAD8(h->rlen);
  v->data = v->key + SP_PAD8(h->klen);
  *at += need;
  return 1;
}

static hid_t sp_vstr_type(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

/* n strings of a column: pointers into a copy with NULs (*pool freed by the caller). */
static char **sp_vstrings(const sp_vview_t *v, char **pool) {
  char **s = malloc((size_t)(v->h.n ? v->h.n : 1) * sizeof *s);
  *pool = malloc((size_t)(v->h.sbytes + v->h.n + 1));
  if (!s || !*pool) {
    free(s);
    free(*pool);
    *pool = NULL;
    return NULL;
  }
  const char *src = v->data + v->h.n * 8;
  int64_t at = 0, used = 0;
  for (int64_t j = 0; j < v->h.n; j++) {
    int64_t k;
    memcpy(&k, v->data + j * 8, 8);
    if (k < 0 || used + k > v->h.sbytes) k = 0;
    memcpy(*pool + at, src + used, (size_t)k);
    (*pool)[at + k] = '\0';
    s[j] = *pool + at;
    at += k + 1;
    used += k;
  }
  return s;
}

/* The dataset of one key under g: link-encoded name, @key. */
static int sp_vdataset(hid_t g, const char *key, size_t klen, int kind, int64_t n,
                       const void *data) {
  char name[3 * 256 + 1], k[256];
  memcpy(k, key, klen);
  k[klen] = '\0';
  sp__link_name_encode(k, klen, name, sizeof name);
  hid_t st = kind == SP_VKIND_STR ? sp_vstr_type() : -1;
  hid_t mem = kind == SP_VKIND_INT    ? H5T_NATIVE_INT64
              : kind == SP_VKIND_REAL ? H5T_NATIVE_DOUBLE
                                      : st;
  hid_t file = kind == SP_VKIND_INT ? H5T_STD_I64LE : kind == SP_VKIND_REAL ? H5T_IEEE_F64LE : st;
  int rc = sp__h5_dataset_1d(g, name, mem, file, n, data);
  if (rc == 0) {
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    rc = d >= 0 ? sp__h5_attr_str(d, "key", k) : SP_EHDF5;
    if (d >= 0) H5Dclose(d);
  }
  if (st >= 0) H5Tclose(st);
  return rc;
}

/* call_values under loc, made with its values_lost attribute if new. */
static hid_t sp_vgroup(hid_t loc, int64_t lost) {
  if (H5Lexists(loc, "call_values", H5P_DEFAULT) > 0)
    return H5Gopen2(loc, "call_values", H5P_DEFAULT);
  hid_t g = H5Gcreate2(loc, "call_values", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g >= 0 && sp__h5_attr(g, "values_lost", H5T_NATIVE_INT64, &lost) != 0) {
    H5Gclose(g);
    return -1;
  }
  return g;
}

/* One rank's columns into rank<rank>/regions/<name>/call_values. */
static int sp_vwrite_rank(hid_t file, int rank, const char *blob, int64_t len) {
  int64_t at = 16;
  sp_vview_t v;
  int rc = 0;
  while (rc == 0 && sp_vnext(blob, len, &at, &v)) {
    char path[64 + 3 * SP_NAME_MAX + 1];
    int off = snprintf(path, sizeof path, "rank%d/regions/", rank);
    sp__link_name_encode(v.region, (size_t)v.h.rlen, path + off, sizeof path - (size_t)off);
    hid_t r = H5Lexists(file, path, H5P_DEFAULT) > 0 ? H5Gopen2(file, path, H5P_DEFAULT) : -1;
    if (r < 0) continue; /* a region without stamps: nothing to align with */
    hid_t g = sp_vgroup(r, v.h.lost);
    rc = g >= 0 ? 0 : SP_EHDF5;
    if (rc == 0 && v.h.kind == SP_VKIND_STR) {
      char *pool = NULL;
      char **s = sp_vstrings(&v, &pool);
      rc = s ? sp_vdataset(g, v.key, (size_t)v.h.klen, v.h.kind, v.h.n, s) : SP_ENOMEM;
      free(s);
      free(pool);
    } else if (rc == 0 && v.h.kind != 0) {
      void *copy = malloc((size_t)(v.h.n ? v.h.n : 1) * 8); /* the blob is not aligned */
      if (copy) memcpy(copy, v.data, (size_t)v.h.n * 8);
      rc = copy ? sp_vdataset(g, v.key, (size_t)v.h.klen, v.h.kind, v.h.n, copy) : SP_ENOMEM;
      free(copy);
    }
    if (g >= 0) H5Gclose(g);
    H5Gclose(r);
  }
  return rc;
}

/* One key over every rank's events: call_values/<key> of the columnar file. */
typedef struct sp_vckey {
  char key[256];
  int kind;
  void *data; /* int64_t, double or char * [E] */
} sp_vckey_t;

static int sp_vcol_key(sp_vckey_t **keys, int *nkeys, const sp_vview_t *v, int64_t E) {
  for (int k = 0; k < *nkeys; k++)
    if (strlen((*keys)[k].key) == (size_t)v->h.klen &&
        memcmp((*keys)[k].key, v->key, (size_t)v->h.klen) == 0)
      return k;
  sp_vckey_t *nk = realloc(*keys, (size_t)(*nkeys + 1) * sizeof *nk);
  if (!nk) return -1;
  *keys = nk;
  sp_vckey_t *c = &nk[*nkeys];
  memcpy(c->key, v->key, (size_t)v->h.klen);
  c->key[v->h.klen] = '\0';
  c->kind = v->h.kind;
  c->data =
      c->kind == SP_VKIND_STR ? calloc((size_t)E + 1, sizeof(char *)) : malloc((size_t)(E + 1) * 8);
  if (!c->data) return -1;
  for (int64_t j = 0; c->kind == SP_VKIND_INT && j < E; j++) ((int64_t *)c->data)[j] = INT64_MIN;
  for (int64_t j = 0; c->kind == SP_VKIND_REAL && j < E; j++) ((double *)c->data)[j] = NAN;
  return (*nkeys)++;
}

/* Copies one rank's column into its key's at rank_at + base; returns values dropped. */
static int64_t sp_vcol_place(sp_vckey_t *c, const sp_vview_t *v, int64_t at, char **pool_s) {
  int64_t lost = 0;
  for (int64_t j = 0; j < v->h.n; j++) {
    const int64_t pos = at + v->h.base + j;
    if (v->h.kind == SP_VKIND_STR) {
      if (c->kind == SP_VKIND_STR)
        ((char **)c->data)[pos] = pool_s[j];
      else
        lost += pool_s[j][0] != '\0';
      continue;
    }
    int64_t iv;
    double dv;
    memcpy(&iv, v->data + j * 8, 8);
    memcpy(&dv, v->data + j * 8, 8);
    const int unset = v->h.kind == SP_VKIND_INT ? iv == INT64_MIN : isnan(dv);
    if (unset) continue;
    if (c->kind == v->h.kind) {
      memcpy((char *)c->data + pos * 8, v->data + j * 8, 8);
    } else if (c->kind == SP_VKIND_REAL && (int64_t)(double)iv == iv && iv != INT64_MAX) {
      ((double *)c->data)[pos] = (double)iv;
    } else if (c->kind == SP_VKIND_INT && dv >= -9.2e18 && dv <= 9.2e18 &&
               (double)(int64_t)dv == dv) {
      ((int64_t *)c->data)[pos] = (int64_t)dv;
    } else {
      lost++;
    }
  }
  return lost;
}

/* Every rank's columns into call_values/<key> of the columnar file. */
static int sp_vwrite_columnar(hid_t file, int nranks, const char *all, const int64_t *offs) {
  int64_t E = 0, lost = 0;
  int64_t *rank_at = calloc((size_t)nranks + 1, sizeof *rank_at);
  if (!rank_at) return SP_ENOMEM;
  for (int r = 0; r < nranks; r++) {
    int64_t n = 0;
    if (offs[r + 1] - offs[r] >= 16) memcpy(&n, all + offs[r], 8);
    rank_at[r] = E;
    E += n;
  }
  sp_vckey_t *keys = NULL;
  int nkeys = 0, rc = 0;
  char **pools = NULL;
  int npools = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    const char *blob = all + offs[r];
    const int64_t len = offs[r + 1] - offs[r];
    int64_t at = 16, last_base = -1;
    sp_vview_t v;
    while (rc == 0 && len >= 16 && sp_vnext(blob, len, &at, &v)) {
      if (v.h.base != last_base) lost += v.h.lost; /* once per region */
      last_base = v.h.base;
      if (v.h.kind == 0) continue;
      int k = sp_vcol_key(&keys, &nkeys, &v, E);
      if (k < 0) {
        rc = SP_ENOMEM;
        break;
      }
      char *pool = NULL;
      char **s = v.h.kind == SP_VKIND_STR ? sp_vstrings(&v, &pool) : NULL;
      if (v.h.kind == SP_VKIND_STR && !s) {
        rc = SP_ENOMEM;
        break;
      }
      lost += sp_vcol_place(&keys[k], &v, rank_at[r], s);
      free(s);
      char **np = pool ? realloc(pools, (size_t)(npools + 1) * sizeof *np) : pools;
      if (pool && np) {
        pools = np;
        pools[npools++] = pool;
      } else if (pool) { /* its strings are in use: keep them alive */
        rc = SP_ENOMEM;
        free(pool);
      }
    }
  }
  hid_t g = rc == 0 && nkeys > 0 ? sp_vgroup(file, lost) : -1;
  if (rc == 0 && nkeys > 0 && g < 0) rc = SP_EHDF5;
  for (int k = 0; k < nkeys; k++) {
    if (rc == 0 && keys[k].kind == SP_VKIND_STR)
      for (int64_t j = 0; j < E; j++)
        if (!((char **)keys[k].data)[j]) ((char **)keys[k].data)[j] = "";
    if (rc == 0)
      rc = sp_vdataset(g, keys[k].key, strlen(keys[k].key), keys[k].kind, E, keys[k].data);
    free(keys[k].data);
  }
  if (g >= 0) H5Gclose(g);
  for (int p = 0; p < npools; p++) free(pools[p]);
  free(pools);
  free(keys);
  free(rank_at);
  return rc;
}

/* Opens path and writes the gathered blobs in the chosen layout. */
static int sp_vwrite_path(const char *path, int columnar, int nranks, const char *all,
                          const int64_t *offs) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  int rc = f >= 0 ? 0 : SP_EHDF5;
  if (rc == 0 && columnar) rc = sp_vwrite_columnar(f, nranks, all, offs);
  for (int r = 0; rc == 0 && !columnar && r < nranks; r++)
    if (offs[r + 1] - offs[r] >= 16)
      rc = sp_vwrite_rank(f, r, all + offs[r], offs[r + 1] - offs[r]);
  if (f >= 0 && H5Fclose(f) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

int sp__values_finalize(sp_par_t *par, const sp_local_t *l, const char *ranks_path,
                        const char *col_path) {
  char *blob = NULL, *all = NULL;
  int64_t len = 0, *offs = NULL;
  int rc = sp_values_pack(l, &blob, &len);
  if (rc != 0) { /* the stamps are written all the same */
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "the values per call are lost: %s", sp_strerror(rc));
    rc = 0;
    len = 0;
  }
  const int any = sp__par_agree(par, len > 0 ? -1 : 0) == -1;
  if (!any) {
    free(blob);
    return 0;
  }
  rc = sp__par_gather_own(par, blob, len, &all, &offs);
  if (rc == 0 && par->rank == 0 && ranks_path)
    rc = sp_vwrite_path(ranks_path, 0, par->size, all, offs);
  if (rc == 0 && par->rank == 0 && col_path) rc = sp_vwrite_path(col_path, 1, par->size, all, offs);
  free(all);
  free(offs);
  return rc;
}

/* Recovery: the ranks' blobs from their spill files, gathered as finalize does. */
static int sp_vgather_serial(const sp_local_t *ls, int nranks, char **all, int64_t **offs) {
  *offs = calloc((size_t)nranks + 2, sizeof **offs);
  char **blob = calloc((size_t)nranks + 1, sizeof *blob);
  int rc = *offs && blob ? 0 : SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    int64_t len = 0;
    if (ls[r].spill.fd >= 0) rc = sp_values_pack(&ls[r], &blob[r], &len);
    (*offs)[r + 1] = (*offs)[r] + len;
  }
  *all = rc == 0 ? malloc((size_t)(*offs)[nranks] + 1) : NULL;
  if (rc == 0 && !*all) rc = SP_ENOMEM;
  for (int r = 0; rc == 0 && r < nranks; r++)
    if ((*offs)[r + 1] > (*offs)[r])
      memcpy(*all + (*offs)[r], blob[r], (size_t)((*offs)[r + 1] - (*offs)[r]));
  for (int r = 0; blob && r < nranks; r++) free(blob[r]);
  free(blob);
  return rc;
}

int sp__values_recover(const char *path, int columnar, const sp_local_t *ls, int nranks) {
  char *all = NULL;
  int64_t *offs = NULL;
  int rc = sp_vgather_serial(ls, nranks, &all, &offs);
  if (rc == 0 && offs[nranks] > 0) rc = sp_vwrite_path(path, columnar, nranks, all, offs);
  free(all);
  free(offs);
  return rc;
}
