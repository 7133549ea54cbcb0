/* exports.c - the formats of --export, one row each (exports.h). */
#include <string.h>

#include "export_otf2.h"
#include "exports.h"
#include "plots.h"

const sp_export_row_t sp_export_rows[] = {
    {"csv", NULL, sp_export_csv, NULL, NULL, NULL,
     "one row per interval: rank,region,start_s,end_s"},
    {"chrome-trace", NULL, sp_export_chrome, NULL, NULL, NULL,
     "JSON for Perfetto / chrome://tracing (pid is the rank, tid the thread); with samples "
     "(SCOPE_PROFILER_SAMPLE_MS) counter events RSS (MB) and CPU (cores) per rank"},
    {"folded", NULL, sp_export_folded, NULL, NULL, NULL,
     "one line per call path with its exclusive time in ns, 'main;step;compute 1234' "
     "(flamegraph.pl, inferno, speedscope); summed over the selected ranks"},
    {"otf2", "-o DIR", NULL, sp_otf2_export_files, sp_otf2_available,
     "this build has no OTF2 library (build with libopen-trace-format2-dev, "
     "SCOPE_PROFILER_ENABLE_OTF2=ON)",
     "an OTF2 trace DIR/traces.otf2 for Vampir, Scalasca and the Score-P tools (several "
     "FILEs: DIR/<label>/traces.otf2); --start-time/--end-time keep the calls that overlap "
     "the window"},
};
const int sp_export_nrows = sizeof sp_export_rows / sizeof sp_export_rows[0];

const sp_export_row_t *sp_export_find(const char *name) {
  for (int k = 0; name && k < sp_export_nrows; k++)
    if (strcmp(name, sp_export_rows[k].name) == 0) return &sp_export_rows[k];
  return NULL;
}

const char *sp_export_names(const char *sep) {
  static char list[2][256];
  int bar = strcmp(sep, "|") == 0;
  char *out = list[bar];
  size_t n = 0;
  out[0] = '\0';
  for (int k = 0; k < sp_export_nrows && n < sizeof list[0]; k++) {
    const char *before = k == 0 ? "" : bar ? "|" : k + 1 == sp_export_nrows ? " or " : sep;
    n += (size_t)snprintf(out + n, sizeof list[0] - n, "%s%s", before, sp_export_rows[k].name);
  }
  return out;
}

void sp_exports_help(FILE *f) {
  for (int k = 0; k < sp_export_nrows; k++) {
    const sp_export_row_t *e = &sp_export_rows[k];
    char label[64];
    snprintf(label, sizeof label, "      --export %s%s%s", e->name, e->outdir ? " " : "",
             e->outdir ? e->outdir : "");
    sp_help_item(f, label, e->help);
  }
}
