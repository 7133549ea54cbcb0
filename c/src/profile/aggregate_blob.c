/* aggregate_blob.c - a snapshot (aggregate_snap.h) packed into a blob for
 * rank 0 or an .aggspill file, and read back: the one parser of bytes that
 * come from another process or from disk, so every count and index in
 * them is checked before it is used (tests/fuzz/fuzz_aggspill.c).
 *
 * Blob: int64 nnames, nrows, nbks; nnames x (uint32 len, bytes); nrows x
 * sp_agg_row_t; nbks x sp_agg_bk_t; then the tail (aggregate_snap.h):
 * int64 nopen, lost, nnames x (int64 line, uint32 len, bytes) of the
 * sources.
 * Native byte order: the ranks of one job share a machine type, as the
 * spill files assume. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_blob.h"
#include "aggregate_vals.h"

void sp__agg_snap_free(sp_agg_snap_t *s) {
  for (int64_t i = 0; s->names && i < s->nnames; i++) free(s->names[i]);
  for (int64_t i = 0; s->srcs && i < s->nsrcs; i++) free(s->srcs[i].file);
  free(s->names);
  free(s->srcs);
  free(s->name_index);
  free(s->rows);
  free(s->bks);
  sp__agg_vals_drop(&s->vals, &s->nvals, &s->vcap);
  memset(s, 0, sizeof *s);
}

int sp__agg_grow(void **p, int64_t *cap, int64_t need, size_t size) {
  if (need <= *cap) return 0;
  /* A count read from a file never wraps the size into a small block. */
  if (need > INT64_MAX / 2 || (uint64_t)need > SIZE_MAX / 2 / size) return SP_ENOMEM;
  int64_t ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  void *np = realloc(*p, (size_t)ncap * size);
  if (!np) return SP_ENOMEM;
  *p = np;
  *cap = ncap;
  return 0;
}

static const char *sp_src_file(const sp_agg_snap_t *s, int64_t i) {
  return i < s->nsrcs && s->srcs[i].file ? s->srcs[i].file : "";
}

int sp__agg_snap_pack(const sp_agg_snap_t *s, char **blob, int64_t *len) {
  int64_t n = 3 * 8 + s->nrows * (int64_t)sizeof *s->rows + s->nbks * (int64_t)sizeof *s->bks;
  for (int64_t i = 0; i < s->nnames; i++) n += 4 + (int64_t)strlen(s->names[i]);
  n += 16; /* the tail: nopen, lost and the sources */
  for (int64_t i = 0; i < s->nnames; i++) n += 12 + (int64_t)strlen(sp_src_file(s, i));
  if (s->nvals) n += sp__agg_vals_bytes(s->vals, s->nvals); /* files without values: as before */
  char *b = malloc((size_t)n), *p = b;
  if (!b) return SP_ENOMEM;
  int64_t head[3] = {s->nnames, s->nrows, s->nbks};
  memcpy(p, head, sizeof head);
  p += sizeof head;
  for (int64_t i = 0; i < s->nnames; i++) {
    uint32_t l = (uint32_t)strlen(s->names[i]);
    memcpy(p, &l, 4);
    memcpy(p + 4, s->names[i], l);
    p += 4 + l;
  }
  /* An empty window (nothing recorded yet) has no arrays: memcpy takes no NULL. */
  if (s->nrows) memcpy(p, s->rows, (size_t)s->nrows * sizeof *s->rows);
  p += s->nrows * (int64_t)sizeof *s->rows;
  if (s->nbks) memcpy(p, s->bks, (size_t)s->nbks * sizeof *s->bks);
  p += s->nbks * (int64_t)sizeof *s->bks;
  memcpy(p, &s->nopen, 8);
  memcpy(p + 8, &s->lost, 8);
  p += 16;
  for (int64_t i = 0; i < s->nnames; i++) {
    const char *f = sp_src_file(s, i);
    int64_t line = i < s->nsrcs ? s->srcs[i].line : 0;
    uint32_t l = (uint32_t)strlen(f);
    memcpy(p, &line, 8);
    memcpy(p + 8, &l, 4);
    memcpy(p + 12, f, l);
    p += 12 + l;
  }
  if (s->nvals) sp__agg_vals_pack(p, s->vals, s->nvals);
  *blob = b;
  *len = n;
  return 0;
}

static uint64_t sp_name_hash(const char *name, uint32_t len) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (uint32_t i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
  return h;
}

/* Rebuilds s's name index at twice the room (at most half full). */
static int sp_name_index_grow(sp_agg_snap_t *s) {
  int64_t slots = s->name_slots ? s->name_slots * 2 : 1024;
  int64_t *ix = malloc((size_t)slots * sizeof *ix);
  if (!ix) return SP_ENOMEM;
  memset(ix, 0xff, (size_t)slots * sizeof *ix);
  for (int64_t i = 0; i < s->nnames; i++) {
    uint64_t k = sp_name_hash(s->names[i], (uint32_t)strlen(s->names[i])) & (uint64_t)(slots - 1);
    while (ix[k] >= 0) k = (k + 1) & (uint64_t)(slots - 1);
    ix[k] = i;
  }
  free(s->name_index);
  s->name_index = ix;
  s->name_slots = slots;
  return 0;
}

/* The id of name in s, added when new: a hash lookup, so that merging
 * ranks of many regions stays linear. */
static int64_t sp_name_id(sp_agg_snap_t *s, const char *name, uint32_t len, int64_t *cap) {
  if ((s->nnames + 1) * 2 > s->name_slots && sp_name_index_grow(s)) return SP_ENOMEM;
  uint64_t mask = (uint64_t)s->name_slots - 1, k = sp_name_hash(name, len) & mask;
  for (int64_t i; (i = s->name_index[k]) >= 0; k = (k + 1) & mask)
    if (strlen(s->names[i]) == len && memcmp(s->names[i], name, len) == 0) return i;
  if (sp__agg_grow((void **)&s->names, cap, s->nnames + 1, sizeof *s->names)) return SP_ENOMEM;
  char *c = malloc(len + 1u);
  if (!c) return SP_ENOMEM;
  memcpy(c, name, len);
  c[len] = '\0';
  s->names[s->nnames] = c;
  s->name_index[k] = s->nnames;
  return s->nnames++;
}

/* 1 when the blob's counts fit in its len bytes: each is checked against
 * the bytes before it is multiplied, so no product of a damaged count
 * wraps (a wrapped size once allocated a small block that the rows were
 * then copied past). */
static int sp_counts_fit(const int64_t head[3], int64_t len) {
  const int64_t room = len - 3 * 8;
  return head[0] >= 0 && head[1] >= 0 && head[2] >= 0 && head[0] <= room / 4 &&
         head[1] <= room / (int64_t)sizeof(sp_agg_row_t) &&
         head[2] <= room / (int64_t)sizeof(sp_agg_bk_t);
}

/* 1 when row r (of a blob with nnames names and nrows rows) is one a
 * snapshot can hold: every field that indexes something within its range. */
static int sp_row_ok(const sp_agg_row_t *r, int64_t nnames, int64_t nrows) {
  return r->region >= 0 && r->region < nnames && r->parent >= -1 && r->parent < nrows &&
         r->rank >= 0 && r->rank < (1 << 24) && r->thread >= 0 && r->depth >= 0 && r->calls >= 0;
}

/* The names s held before a blob's were added: those, and the sources
 * given to them, are freed again. */
static void sp_names_truncate(sp_agg_snap_t *s, int64_t n) {
  for (int64_t i = n; i < s->nnames; i++) free(s->names[i]);
  if (s->nnames > n) { /* the index forgets them: rebuilt at the next name */
    free(s->name_index);
    s->name_index = NULL;
    s->name_slots = 0;
  }
  s->nnames = n;
  for (int64_t i = n; i < s->nsrcs; i++) free(s->srcs[i].file);
  if (s->nsrcs > n) s->nsrcs = n;
}

/* Region id's source from a blob, unless it has one already (the first
 * rank's wins, as the first registration does in a process). */
static int sp_src_put(sp_agg_snap_t *s, int64_t id, const char *f, uint32_t len, int64_t line) {
  if (id >= s->nsrcs) {
    sp_agg_src_t *ns = realloc(s->srcs, (size_t)s->nnames * sizeof *ns);
    if (!ns) return SP_ENOMEM;
    memset(ns + s->nsrcs, 0, (size_t)(s->nnames - s->nsrcs) * sizeof *ns);
    s->srcs = ns;
    s->nsrcs = s->nnames;
  }
  if (s->srcs[id].file || len == 0) return 0;
  char *c = malloc(len + 1u);
  if (!c) return SP_ENOMEM;
  memcpy(c, f, len);
  c[len] = '\0';
  s->srcs[id].file = c;
  s->srcs[id].line = line;
  return 0;
}

/* The blob's tail (see aggregate_snap.h) at p: the sources into s, the
 * numbers of open calls and of calls not recorded into n[0] and n[1]. */
static int sp_unpack_tail(sp_agg_snap_t *s, const char *p, const char *end, const int64_t *map,
                          int64_t nnames, int64_t nrows, int64_t n[2]) {
  if (end - p < 16) return SP_EINVAL;
  memcpy(n, p, 16);
  p += 16;
  for (int64_t i = 0; i < nnames; i++) {
    int64_t line;
    uint32_t l;
    if (end - p < 12) return SP_EINVAL;
    memcpy(&line, p, 8);
    memcpy(&l, p + 8, 4);
    if (end - p - 12 < (int64_t)l) return SP_EINVAL;
    int rc = sp_src_put(s, map[i], p + 12, l, line);
    if (rc) return rc;
    p += 12 + l;
  }
  /* The values per call path (since profile mode records them), rows of
   * this blob counted from s's rows after it is appended. */
  if (p != end) {
    int rc = sp__agg_vals_unpack(&p, end, nrows, s->nrows, &s->vals, &s->nvals, &s->vcap);
    if (rc) return rc;
  }
  return p != end || n[0] < 0 || n[1] < 0 ? SP_EINVAL : 0;
}

/* Appends head[1] rows and head[2] buckets at p (checked) to s. */
static int sp_append_rows(sp_agg_snap_t *s, const char *p, const int64_t head[3],
                          const int64_t *map) {
  int64_t rcap = s->nrows, bcap = s->nbks, base = s->nrows;
  if (sp__agg_grow((void **)&s->rows, &rcap, s->nrows + head[1], sizeof *s->rows) ||
      sp__agg_grow((void **)&s->bks, &bcap, s->nbks + head[2], sizeof *s->bks))
    return SP_ENOMEM;
  if (head[1]) memcpy(s->rows + base, p, (size_t)head[1] * sizeof *s->rows);
  p += head[1] * (int64_t)sizeof *s->rows;
  if (head[2]) memcpy(s->bks + s->nbks, p, (size_t)head[2] * sizeof *s->bks);
  for (int64_t i = base; i < base + head[1]; i++) {
    sp_agg_row_t *r = &s->rows[i];
    if (!sp_row_ok(r, head[0], head[1])) return SP_EINVAL;
    r->region = (int32_t)map[r->region];
    if (r->parent >= 0) r->parent += (int32_t)base; /* rows of a blob count from its first */
  }
  for (int64_t i = s->nbks; i < s->nbks + head[2]; i++) {
    sp_agg_bk_t *b = &s->bks[i];
    if (b->row < 0 || b->row >= head[1] || b->bucket < 0 || b->bucket >= SP_AGG_NBUCKETS ||
        b->count < 0)
      return SP_EINVAL;
    b->row += base;
  }
  s->nrows = base + head[1];
  s->nbks += head[2];
  return 0;
}

int sp__agg_snap_unpack_into(sp_agg_snap_t *s, const char *blob, int64_t len) {
  int64_t head[3];
  if (len < (int64_t)sizeof head) return SP_EINVAL;
  memcpy(head, blob, sizeof head);
  if (!sp_counts_fit(head, len)) return SP_EINVAL;
  const char *p = blob + sizeof head, *end = blob + len;
  const int64_t names_before = s->nnames;
  int64_t ncap = s->nnames;
  int64_t *map = malloc((size_t)(head[0] ? head[0] : 1) * sizeof *map);
  if (!map) return SP_ENOMEM;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < head[0]; i++) {
    uint32_t l;
    if (end - p < 4) {
      rc = SP_EINVAL;
      break;
    }
    memcpy(&l, p, 4);
    if (end - p - 4 < (int64_t)l) {
      rc = SP_EINVAL;
      break;
    }
    map[i] = sp_name_id(s, p + 4, l, &ncap);
    if (map[i] < 0) rc = (int)map[i];
    p += 4 + l;
  }
  /* Blobs without the tail (older .aggspill files) end after the buckets. */
  int64_t body = head[1] * (int64_t)sizeof *s->rows + head[2] * (int64_t)sizeof *s->bks;
  int64_t tail[2] = {0, 0}; /* nopen, lost */
  if (rc == 0 && end - p < body) rc = SP_EINVAL;
  const int64_t vals_before = s->nvals;
  if (rc == 0 && end - p > body) rc = sp_unpack_tail(s, p + body, end, map, head[0], head[1], tail);
  if (rc == 0) rc = sp_append_rows(s, p, head, map);
  if (rc) { /* its values go too */
    for (int64_t i = vals_before; i < s->nvals; i++) free(s->vals[i].key);
    s->nvals = vals_before;
  }
  if (rc == 0) {
    s->nopen = sp__agg_add_sat(s->nopen, tail[0]); /* several files' counts */
    s->lost = sp__agg_add_sat(s->lost, tail[1]);
  }
  /* A refused blob adds nothing: its names go again (its rows and buckets
   * were never counted). */
  if (rc) sp_names_truncate(s, names_before);
  free(map);
  return rc;
}

/* The head of a whole .aggspill file's n bytes: its writer in *run (all 0
 * and rank -1 for version 1) and where the blob starts in *blob_at; 0 or
 * SP_ESPILL (not one, a newer version, a length that does not match). */
static int sp_aggspill_head(const char *buf, int64_t n, sp_aggspill_run_t *run, int64_t *blob_at) {
  sp_aggspill_head_t h;
  memset(run, 0, sizeof *run);
  run->rank = -1;
  if (n < (int64_t)sizeof h) return SP_ESPILL;
  memcpy(&h, buf, sizeof h);
  int64_t at = (int64_t)sizeof h;
  if (h.magic != SP_AGGSPILL_MAGIC || h.version < 1 || h.version > SP_AGGSPILL_VERSION)
    return SP_ESPILL;
  if (h.version >= 2) {
    if (n - at < (int64_t)sizeof *run) return SP_ESPILL;
    memcpy(run, buf + at, sizeof *run);
    at += (int64_t)sizeof *run;
    if (run->rank < -1) return SP_ESPILL;
  }
  if (h.len <= 0 || h.len != n - at) return SP_ESPILL;
  *blob_at = at;
  return 0;
}

int sp__aggspill_parse(const char *buf, int64_t n, sp_agg_snap_t *s, sp_aggspill_run_t *run) {
  sp_aggspill_run_t mine;
  int64_t at;
  if (sp_aggspill_head(buf, n, run ? run : &mine, &at) != 0) return SP_ESPILL;
  int rc = sp__agg_snap_unpack_into(s, buf + at, n - at);
  return rc == SP_ENOMEM ? rc : rc ? SP_ESPILL : 0;
}
