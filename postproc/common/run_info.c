/* run_info.c - what the program said about its run, for the outputs'
 * headers: the /metadata keys the program set (sp_metadata_set), without
 * the ones the library writes itself, and the regions' source locations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/src/spill/meta_keys.h" /* the core's list, the one of both */
#include "pproc.h"

/* Keys written by the core: shown elsewhere, or not about the run's
 * parameters. The core's own list (c/src/spill/meta_keys.h), which
 * sp_metadata_set refuses. */
static const char *const sp_own_keys[] = {SP_META_RESERVED_KEYS};

int sp_run_meta_is_own(const char *key) {
  for (size_t i = 0; i < sizeof sp_own_keys / sizeof sp_own_keys[0]; i++)
    if (strcmp(key, sp_own_keys[i]) == 0) return 1;
  return 0;
}

int sp_run_meta_get(sp_reader_t *r, int i, char *key, size_t kcap, char *val, size_t vcap) {
  int kind = 0;
  if (sp_reader_metadata_entry(r, i, key, kcap, val, vcap, &kind) != 0) return 0;
  return kind != SP_READER_META_OTHER && !sp_run_meta_is_own(key);
}

void sp_run_meta_note(sp_reader_t *r, FILE *f) {
  int n = sp_reader_metadata_count(r), shown = 0;
  size_t col = 0;
  for (int i = 0; i < n; i++) {
    char key[256], val[72];
    if (!sp_run_meta_get(r, i, key, sizeof key, val, sizeof val)) continue;
    if (strlen(val) == sizeof val - 1) strcpy(val + sizeof val - 4, "..."); /* cut */
    if (strlen(key) > 64) strcpy(key + 61, "...");
    size_t w = strlen(key) + strlen(val) + 5;
    if (shown == 0 || col + w > 96) {
      fputs(shown ? "\n# " : "# run metadata: ", f);
      col = shown ? 2 : 16;
    } else {
      fputs("; ", f);
    }
    sp_text_put(f, key, SP_TEXT_PLAIN);
    fputs(" = ", f);
    sp_text_put(f, val, SP_TEXT_PLAIN);
    col += w;
    shown++;
  }
  if (shown) fputc('\n', f);
}

int sp_region_source_text(sp_reader_t *r, int g, char *out, size_t cap) {
  char file[4096];
  int64_t line = 0;
  if (sp_reader_region_source(r, g, file, sizeof file, &line) != 1) return 0;
  snprintf(out, cap, "%s:%lld", file, (long long)line);
  return 1;
}
