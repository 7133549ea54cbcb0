/* exports.h - the formats of --export, one row each: the option parser,
 * the usage line, the help text and main's dispatch all read this one
 * table (exports.c). A new export is a row and its writer. */
#ifndef SP_EXPORTS_H
#define SP_EXPORTS_H

#include <stdio.h>

#include "pproc.h"

typedef struct sp_export_row {
  const char *name;   /* the --export word */
  const char *outdir; /* NULL: one FILE to stdout; else how --help shows the -o it needs */
  /* The writer of a stdout export (outdir NULL): one selection, an SP_EXIT_* code. */
  int (*write_one)(const sp_selection_t *sel);
  /* The writer of an export under -o DIR: every FILE (one per label), an SP_EXIT_* code. */
  int (*write_files)(const sp_selection_t *sels, const char *const *labels, int nfiles,
                     const sp_options_t *o);
  int (*available)(void); /* NULL: always built; else 0 when this build lacks it */
  const char *missing;    /* what a build without it lacks, for the refusal */
  const char *help;       /* what it writes, for the help text */
} sp_export_row_t;

extern const sp_export_row_t sp_export_rows[];
extern const int sp_export_nrows;

/* The row of an --export word, NULL if none. */
const sp_export_row_t *sp_export_find(const char *name);
/* "csv|chrome-trace|folded|otf2" (sep "|") or "csv, chrome-trace, folded or otf2"
 * (sep ", " with " or " before the last): the words, for usage and messages. */
const char *sp_export_names(const char *sep);
/* The --export lines of --help, from the table. */
void sp_exports_help(FILE *f);

/* The stdout writers (export.c, export_folded.c). */
int sp_export_csv(const sp_selection_t *sel);
int sp_export_chrome(const sp_selection_t *sel);
int sp_export_folded(const sp_selection_t *sel);

#endif
