/* run_meta.h - run metadata (sp_metadata_set): what the program tells
 * about its run, kept per session, put into the spill file, carried by the
 * plans and written by the layout (layout_meta.h). */
#ifndef SP_RUN_META_H
#define SP_RUN_META_H

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
  uint32_t type;   /* SP_META_* */
  uint32_t len;    /* bytes in val */
  int32_t spilled; /* the session's store: its record is in the spill file */
  int32_t unused;
} sp_meta_entry_t;

typedef struct sp_meta_list {
  sp_meta_entry_t *e;
  int32_t n, cap;
} sp_meta_list_t;

/* Sets key in list (replacing a value of the same key); copies both. */
SP_HIDDEN int sp__meta_list_put(sp_meta_list_t *l, const char *key, size_t klen, uint32_t type,
                                const void *val, size_t vlen);
SP_HIDDEN void sp__meta_list_free(sp_meta_list_t *l);
SP_HIDDEN int sp__meta_list_copy(sp_meta_list_t *dst, const sp_meta_list_t *src);
/* A copy of the session's metadata (finalize's plan). */
SP_HIDDEN int sp__meta_snapshot(sp_meta_list_t *out);
SP_HIDDEN void sp__meta_session_reset(void); /* sp_setup and the end of sp_finalize */
/* At sp_finalize: one line with the number of calls refused at the key
 * cap (each was not reported after the first). */
SP_HIDDEN void sp__meta_report_refused(void);
/* Under the state lock with the spill file open: writes the entries not in
 * it yet through rec (spill.c's record writer). */
SP_HIDDEN int sp__meta_spill(int (*rec)(uint32_t type, const void *p, size_t n));
/* Reads one SP_SPILL_META payload into l; SP_ESPILL when inconsistent. */
SP_HIDDEN int sp__meta_from_spill(sp_meta_list_t *l, const char *p, size_t n);

#endif
