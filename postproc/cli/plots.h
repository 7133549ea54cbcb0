/* plots.h - the charts of --plots, one row each, in the order they are drawn:
 * the option parser, --plots all, the help text and the -o DIR run
 * (charts_run.c) all read this one table (plots.c). */
#ifndef SP_PLOTS_H
#define SP_PLOTS_H

#include <stdio.h>

#include "charts.h"

/* What a chart is, besides its name (bits of sp_plot_kind_t.needs). */
enum {
  SP_CHART_DEFAULT = 1u << 0, /* drawn without --plots */
  SP_CHART_STATS = 1u << 1,   /* reads the per-(region, rank) duration statistics */
  SP_CHART_FILES = 1u << 2,   /* compares several files: left out with one unless named */
  SP_CHART_STAMPS = 1u << 3,  /* drawn from stamps: left out for an aggregate file */
  SP_CHART_PATHS = 1u << 4,   /* drawn from the call tree: from an aggregate file only
                                 when it stores call paths (profile mode's files) */
  SP_CHART_PER_RANK = 1u << 5 /* a lane or cell per rank: representative ranks when more
                                 than fit (rank_pick.h) */
};

typedef struct sp_plot_kind {
  const char *name; /* the --plots word; the chart is <name>_plot.<format> */
  unsigned bit;     /* its sp_plot_t bit */
  unsigned asked;   /* the bit noting that --plots named it (not only through all), or 0 */
  unsigned needs;   /* SP_CHART_* */
  int (*draw)(const sp_charts_t *c); /* NULL: the Gantt chart, drawn apart (gantt.h) */
  const char *what;                  /* what it draws, for the help text */
} sp_plot_kind_t;

extern const sp_plot_kind_t sp_plot_kinds[];
extern const int sp_plot_nkinds;

/* sp_plot_t bits of every chart with all of the needs (0: every chart, --plots all). */
unsigned sp_plots_with(unsigned needs);
/* The bits of one --plots word ("all" included), 0 if it names no chart. */
unsigned sp_plots_word(const char *word);
/* "gantt, flame, ..., or all": the words of --plots, for messages. */
const char *sp_plots_names(void);
/* The lines of --help after --plots' own paragraph (options.c's row):
 * one per chart of the table, then which charts read an aggregate file. */
void sp_plots_help(FILE *f);
/* Writes text from column 25 on, words wrapped before column 80, a line
 * broken at each '\n'; the first line's indent is already written when
 * first is set (the help's tables: --plots here, --export in exports.c,
 * the options in options.c). */
void sp_help_wrap(FILE *f, const char *text, int first);
/* One item of --help: label (with its indent), then text from column 25,
 * on the label's line when a space still fits, else on the next; the
 * label alone when text is NULL. */
void sp_help_item(FILE *f, const char *label, const char *text);

#endif
