/* run_meta.h - run metadata (sp_metadata_set) and region source locations
 * (sp_region_at): what the program tells about itself, kept per session,
 * put into the spill file and written by the layout. */
#ifndef SP_RUN_META_H
#define SP_RUN_META_H

#include <hdf5.h>

#include "sp_internal.h"

/* Kinds of a metadata value (also the spill record's and the plan's). */
enum { SP_META_STR = 1, SP_META_INT = 2, SP_META_REAL = 3 };

#define SP_META_KEY_MAX 255     /* bytes of a key */
#define SP_META_VALUE_MAX 65535 /* bytes of a string value */
#define SP_META_MAX_KEYS 256    /* keys per session */

/* One key = value; val holds the string's bytes (NUL after them) or the
 * 8 bytes of an int64 / double. */
typedef struct sp_meta_entry {
  char *key;
  char *val;
  uint32_t type; /* SP_META_* */
  uint32_t len;  /* bytes in val */
  int32_t spilled; /* the session's store: its record is in the spill file */
  int32_t unused;
} sp_meta_entry_t;

typedef struct sp_meta_list {
  sp_meta_entry_t *e;
  int32_t n, cap;
} sp_meta_list_t;

/* ---- run_meta.c ---- */
/* Sets key in list (replacing a value of the same key); copies both. */
SP_HIDDEN int sp__meta_list_put(sp_meta_list_t *l, const char *key, size_t klen, uint32_t type,
                                const void *val, size_t vlen);
SP_HIDDEN void sp__meta_list_free(sp_meta_list_t *l);
SP_HIDDEN int sp__meta_list_copy(sp_meta_list_t *dst, const sp_meta_list_t *src);
/* A copy of the session's metadata (finalize's plan). */
SP_HIDDEN int sp__meta_snapshot(sp_meta_list_t *out);
SP_HIDDEN void sp__meta_session_reset(void); /* sp_setup and the end of sp_finalize */
/* Under the state lock with the spill file open: writes the entries not in
 * it yet through rec (spill.c's record writer). */
SP_HIDDEN int sp__meta_spill(int (*rec)(uint32_t type, const void *p, size_t n));
/* Reads one SP_SPILL_META payload into l; SP_ESPILL when inconsistent. */
SP_HIDDEN int sp__meta_from_spill(sp_meta_list_t *l, const char *p, size_t n);
/* 1 when s[0..n) is UTF-8 without NUL bytes. */
SP_HIDDEN int sp__utf8_ok(const char *s, size_t n);

/* ---- region_source.c ---- */
/* The location a region was first registered at (sp_region_at), or 0. */
SP_HIDDEN int sp__source_get(int32_t h, const char **file, int64_t *line);
/* Under the state lock with the spill file open: the SOURCE record of h
 * once (after its REGION record). */
SP_HIDDEN int sp__source_spill(int32_t h, int (*rec)(uint32_t type, const void *p, size_t n));
SP_HIDDEN void sp__source_reset(void); /* with the region table */
/* The SOURCE payload's parts: handle, line and file name (not NUL-ended). */
SP_HIDDEN int sp__source_from_spill(const char *p, size_t n, int32_t *h, int64_t *line,
                                    const char **file, size_t *flen);

/* ---- layout_meta.c ---- */
struct sp_rank_plan;
struct sp_plan_region;
/* The users' keys in /metadata (g): each from the lowest rank that set it. */
SP_HIDDEN int sp__layout_user_meta(hid_t g, const struct sp_rank_plan *plans, int nplans);
/* rank<N>/metadata with the keys whose value on rank r differs from the one
 * in /metadata (none: no group). */
SP_HIDDEN int sp__layout_rank_meta(hid_t rg, const struct sp_rank_plan *plans, int nplans, int r);
/* Every entry of l as an attribute of g (the aggregate file's /metadata). */
SP_HIDDEN int sp__layout_meta_list(hid_t g, const sp_meta_list_t *l);
/* source_file and source_lineno on a region group, where known. */
SP_HIDDEN int sp__layout_region_source(hid_t g, const struct sp_plan_region *r);

#endif
