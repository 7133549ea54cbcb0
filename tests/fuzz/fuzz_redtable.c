/* fuzz_redtable.c - harness for the parser of the tables that ranks send
 * each other in profile mode's reduction across ranks
 * (c/src/profile/aggregate_red_table.c). The input is one table's bytes: parsed,
 * merged into an empty table and into itself (a merge of two children),
 * and packed again. A parse that succeeds must leave every index in range;
 * any crash, sanitizer report or leak is a finding. Replayed from
 * corpus/redtable in every build (fuzz.replay.redtable.*). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_red_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sp_fuzz_check(const sp_red_t *t) {
  for (int64_t i = 0; i < t->npaths; i++)
    if (t->paths[i].name < 0 || t->paths[i].name >= t->nnames || t->paths[i].parent >= i) abort();
  for (int64_t i = 0; i < t->nbks; i++)
    if (t->bks[i].row < 0 || t->bks[i].row >= t->npaths) abort();
  for (int64_t i = 0; i < t->ntops; i++)
    if (t->tops[i].name < 0 || t->tops[i].name >= t->nnames) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size ? size : 1); /* the parser gets no more bytes than there are */
  if (!buf) return 0;
  if (size) memcpy(buf, data, size);
  sp_red_t t, acc;
  memset(&acc, 0, sizeof acc);
  if (sp__red_unpack(&t, buf, (int64_t)size) == 0) {
    sp_fuzz_check(&t);
    if (sp__red_merge(&acc, &t, 2) == 0) sp_fuzz_check(&acc);
    if (sp__red_merge(&acc, &t, 2) == 0) sp_fuzz_check(&acc);
    char *blob;
    int64_t len;
    if (sp__red_pack(&acc, &blob, &len) == 0) {
      sp_red_t again; /* refused only where two merges passed 2^24 ranks */
      if (sp__red_unpack(&again, blob, len) == 0) {
        sp_fuzz_check(&again);
        sp__red_free(&again);
      }
      free(blob);
    }
    sp__red_free(&t);
  }
  sp__red_free(&acc);
  free(buf);
  return 0;
}
