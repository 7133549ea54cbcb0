/* main.c - scope-profiler-pproc: parse options, then dispatch.
 *
 * A first word naming a subcommand is dispatched before the report
 * options are parsed: "merge" rebuilds a profile from spill files after a
 * crash (the same command line as scope-profiler-merge). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "html.h"
#include "merge_cli.h"
#include "pproc.h"

/* The default command: read a profile and write the requested outputs. */
static int sp_cmd_report(int argc, char **argv) {
  sp_options_t o;
  int rc = sp_options_parse(argc, argv, &o);
  if (rc != 0) {
    sp_options_free(&o);
    return rc < 0 ? SP_EXIT_OK : rc;
  }
  sp_selection_t sel;
  rc = sp_selection_build(&o, &sel);
  if (rc == 0) {
    if (o.list) rc = sp_list_print(&sel);
    else if (o.summary) rc = sp_summary_print(&sel, o.sort);
    else if (o.export_kind != SP_EXPORT_NONE) rc = sp_export_write(&sel, o.export_kind);
  }
  sp_html_counts_t counts;
  if (o.backend == SP_BACKEND_HTML) {
    if (rc == 0 && (o.outdir || o.show)) rc = sp_html_render(&sel, &o, &counts);
  } else {
    if (rc == 0 && o.outdir) rc = sp_gantt_render(&sel, &o, 0);
    if (rc == 0 && o.show) rc = sp_gantt_render(&sel, &o, 1);
  }
  /* ferror too: a write that failed earlier (full disk) leaves nothing to flush. */
  if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
    sp_msg(SP_QUIET, "cannot write to stdout");
    rc = SP_EXIT_IO;
  }
  sp_selection_free(&sel);
  sp_options_free(&o);
  return rc;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "merge") == 0)
    return sp_merge_main(argc - 1, argv + 1, "scope-profiler-pproc merge");
  return sp_cmd_report(argc, argv);
}
