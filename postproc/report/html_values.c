/* html_values.c - an exact lane's values per call (sp_call_set*;
 * docs/values.md) for the report's tooltips: per key one array beside the
 * lane's intervals, a value or null per call in the lane's order. Keys no
 * call of the lane sets (the pair's other threads' keys) are left out. */
#include <math.h>
#include <stdio.h>

#include "html.h"

void sp_html_lane_values(FILE *f, const sp_reader_values_t *v, const sp_html_span_t *sp,
                         int64_t m) {
  int first = 1;
  for (int k = 0; v && v->present && k < v->nkeys; k++) {
    const sp_reader_value_key_t *c = &v->keys[k];
    int any = 0;
    for (int64_t i = 0; i < m && !any; i++) any = sp_reader_value_set(c, sp[i].idx);
    if (!any) continue;
    fputs(first ? ",\"vals\":{" : ",", f);
    first = 0;
    sp_html_json_str(f, c->key);
    fputs(":[", f);
    for (int64_t i = 0; i < m; i++) {
      int64_t e = sp[i].idx;
      if (i) fputc(',', f);
      if (!sp_reader_value_set(c, e))
        fputs("null", f);
      else if (c->kind == SP_READER_VALUE_INT)
        fprintf(f, "%lld", (long long)c->ints[e]);
      else if (c->kind == SP_READER_VALUE_REAL && isfinite(c->reals[e]))
        fprintf(f, "%.17g", c->reals[e]);
      else if (c->kind == SP_READER_VALUE_REAL) /* JSON has no infinities */
        fputs(c->reals[e] > 0 ? "\"inf\"" : "\"-inf\"", f);
      else
        sp_html_json_str(f, c->strings[e]);
    }
    fputc(']', f);
  }
  if (!first) fputc('}', f);
}
