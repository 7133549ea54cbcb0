/* html.h - the interactive report (--backend html): one self-contained report.html. */
#ifndef SP_HTML_H
#define SP_HTML_H

#include <stdio.h>

#include "pproc.h"

/* Budgets that keep report.html small whatever the trace (see postproc/README.md). */
#define SP_HTML_EXACT_MAX 1000000 /* default of --html-exact: intervals embedded exactly */
#define SP_HTML_OCC_BYTES 6000000 /* occupancy bytes over all binned lanes and levels */
#define SP_HTML_OCC_COARSE 256    /* bins of the coarsest occupancy level */
#define SP_HTML_OCC_FINE 16384    /* bins of the finest level, at most */

/* What the data part of a report holds, for messages and the benchmark. */
typedef struct sp_html_counts {
  int64_t intervals; /* intervals read */
  int64_t exact;     /* of those, embedded exactly */
  int lanes;         /* (region, rank, thread) lanes */
  int binned_lanes;  /* lanes embedded as occupancy only */
  int fine_bins;     /* bins of the finest occupancy level (0: no binned lane) */
} sp_html_counts_t;

/* html_data.c: writes the report's data as one JSON object to f (text
 * safe inside <script>: '<', '>' and '&' are escaped) for the first of
 * nfiles selections (the others feed the speedup plot), embedding at most
 * o->html_exact intervals exactly, colours from o->cmap. Returns an sp_exit_t
 * code after printing why on failure; fills *c. */
int sp_html_data_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels,
                       const sp_options_t *o, sp_html_counts_t *c);

/* Writes s as a JSON string that is also safe inside <script> (html_data.c). */
void sp_html_json_str(FILE *f, const char *s);

/* html_files.c: with nfiles >= 2, writes ',"files":[...]': per file its
 * label (labels[k], or the file name when labels is NULL), selected ranks
 * and per region the stamped calls and their summed duration (the speedup
 * plot). Nothing for one file. Returns an sp_exit_t code. */
int sp_html_files_write(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels);

/* html_tree.c: writes ',"tree":[...]', the call tree of the selection
 * (sp_reader_tree_build), node regions as positions in sel->regions
 * (gpos maps reader region index to position). Returns an sp_exit_t code. */
int sp_html_tree_write(FILE *f, const sp_selection_t *sel, const int *gpos);

/* html_report.c: writes DIR/report.html (DIR = o->outdir, "." when NULL)
 * through a temporary file; with o->show opens it (xdg-open) or prints
 * its path. The timeline shows sels[0]; with nfiles >= 2 the page adds
 * the speedup plot. Returns an sp_exit_t code. */
int sp_html_render(const sp_selection_t *sels, int nfiles, const char *const *labels,
                   const sp_options_t *o, sp_html_counts_t *c);

/* report_assets.c, generated at build time from postproc/report/ by
 * postproc/report/embed.cmake: the viewer's files, NUL-terminated. */
extern const unsigned char sp_report_template[];
extern const unsigned char sp_report_css[];
extern const unsigned char sp_report_js[];

#endif
