/* main.c - scope-profiler-pproc: parse options, then dispatch.
 *
 * A first word naming a subcommand is dispatched before the report
 * options are parsed: "merge" rebuilds a profile from spill files after a
 * crash (the same command line as scope-profiler-merge); "check" compares
 * two profiles and fails on a regression (check.c). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "html.h"
#include "merge_cli.h"
#include "charts.h"
#include "exports.h"
#include "gantt.h"
#include "pproc.h"

/* The text output chosen for file k of several. */
static int sp_text_output(const sp_selection_t *sel, const sp_options_t *o) {
  if (o->list) return sp_list_print(sel, o->table);
  if (o->summary) return sp_summary_print(sel, o);
  if (o->waits) return sp_waits_print(sel, o);
  if (o->tree) return sp_tree_print(sel, o);
  if (o->io) return sp_io_print(sel, o);
  if (o->values) return sp_values_print(sel, o);
  if (o->export_row) return o->export_row->write_one(sel);
  return 0;
}

static int sp_outputs(const sp_selection_t *sels, const sp_inputs_t *in, const sp_options_t *o) {
  const char *const *labels = (const char *const *)in->labels;
  int rc = 0;
  if (o->export_row && o->export_row->write_files)
    return o->export_row->write_files(sels, labels, in->n, o);
  if (o->compare) {
    rc = sp_compare_print(sels, labels, in->n, o);
  } else if (o->tree && o->table == SP_TABLE_JSON && in->n > 1) {
    rc = sp_tree_json_files(stdout, sels, NULL, labels, in->n);
  } else {
    for (int k = 0; rc == 0 && k < in->n; k++) {
      sp_table_set_file(k, in->n, labels[k]);
      rc = sp_text_output(&sels[k], o);
    }
  }
  if (rc == 0 && o->outdir_given) rc = sp_json_outputs(sels, labels, in->n, o);
  /* The PLplot charts draw one panel per file where they show files apart. */
  if (in->n > 1 && (o->outdir || o->show) && rc == 0 && o->backend == SP_BACKEND_HTML)
    sp_msg(SP_NORMAL, "the report's timeline and tables show the first file only (%s); %s",
           in->labels[0],
           in->n == 2 ? "Change and Speedup compare the two files"
                      : "Speedup and Weak scaling compare the files");
  if (o->backend == SP_BACKEND_HTML) {
    sp_html_counts_t counts;
    if (rc == 0 && (o->outdir || o->show)) rc = sp_html_render(sels, in->n, labels, o, &counts);
    return rc;
  }
  if (rc == 0 && o->outdir) rc = sp_charts_write(sels, labels, in->n, o);
  if (rc == 0 && o->show) {
    sp_gantt_timing_t tm;
    rc = sp_gantt_render_files(sels, labels, in->n, o, 1, &tm);
  }
  return rc;
}

/* Labels from --label (one per file) or from the file names. */
static int sp_labels_apply(sp_inputs_t *in, const sp_options_t *o) {
  if (o->nlabels == 0) return 0;
  if ((int)o->nlabels != in->n) {
    sp_msg(SP_QUIET, "%zu --label given for %d file%s", o->nlabels, in->n, in->n == 1 ? "" : "s");
    sp_usage_short();
    return SP_EXIT_USAGE;
  }
  for (int k = 0; k < in->n; k++) {
    char *l = strdup(o->labels[k]);
    if (!l) return SP_EXIT_IO;
    free(in->labels[k]);
    in->labels[k] = l;
  }
  return 0;
}

/* The default command: read the profiles and write the requested outputs. */
static int sp_cmd_report(int argc, char **argv) {
  sp_options_t o;
  int rc = sp_options_parse(argc, argv, &o);
  if (rc != 0) {
    sp_options_free(&o);
    return rc < 0 ? SP_EXIT_OK : rc;
  }
  /* A build without PLplot refuses a chart request before reading a file. */
  if (!sp_charts_built() && o.backend == SP_BACKEND_PLPLOT &&
      !(o.export_row && o.export_row->outdir) && (o.show || (o.outdir && !o.skip_images))) {
    sp_msg(SP_QUIET, "%s", SP_CHARTS_NO_PLPLOT);
    sp_usage_short();
    sp_options_free(&o);
    return SP_EXIT_USAGE;
  }
  sp_inputs_t in;
  rc = sp_inputs_expand(o.words, o.nwords, &in);
  if (rc == 0) rc = sp_labels_apply(&in, &o);
  if (rc == 0 && in.n > 1 && o.export_row && !o.export_row->outdir) {
    sp_msg(SP_QUIET, "--export reads one file (%d given)", in.n);
    rc = SP_EXIT_USAGE;
  }
  sp_selection_t *sels = calloc((size_t)(in.n ? in.n : 1), sizeof *sels);
  if (rc == 0 && !sels) rc = SP_EXIT_IO;
  int built = 0; /* selections to free, a partly built one included */
  while (rc == 0 && built < in.n) {
    sp_options_t one = o;
    one.file = in.files[built];
    rc = sp_selection_build(&one, &sels[built++]);
  }
  if (rc == 0) rc = sp_outputs(sels, &in, &o);
  /* ferror too: a write that failed earlier (full disk) leaves nothing to flush. */
  if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
    sp_msg(SP_QUIET, "cannot write to stdout");
    rc = SP_EXIT_IO;
  }
  for (int k = 0; sels && k < built; k++) sp_selection_free(&sels[k]);
  free(sels);
  sp_inputs_free(&in);
  sp_options_free(&o);
  return rc;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "merge") == 0)
    return sp_merge_main(argc - 1, argv + 1, "scope-profiler-pproc merge");
  if (argc > 1 && strcmp(argv[1], "check") == 0) return sp_check_main(argc - 1, argv + 1);
  return sp_cmd_report(argc, argv);
}
