/* plots.c - the table of the charts of --plots (plots.h). */
#include <stdio.h>
#include <string.h>

#include "plots.h"

const sp_plot_kind_t sp_plot_kinds[] = {
    {"gantt", SP_PLOT_GANTT, 0, SP_CHART_DEFAULT | SP_CHART_STAMPS | SP_CHART_PER_RANK, NULL,
     "a lane per region and rank (and thread), a bar per call; under them the RSS of "
     "each rank with samples (SCOPE_PROFILER_SAMPLE_MS)"},
    {"flame", SP_PLOT_FLAME, 0, SP_CHART_DEFAULT | SP_CHART_STAMPS, sp_flame_plot,
     "call depth over time of rank 0 (of each --ranks rank, at most 16), a band per "
     "rank and thread"},
    {"durations", SP_PLOT_DURATIONS, 0, SP_CHART_DEFAULT | SP_CHART_STATS, sp_durations_plot,
     "bars per region of avg, min, max over the calls of the selected ranks or total "
     "per rank (mean), a bar per file, log axis when they span decades "
     "(durations_plot_<metric>; one --metrics: durations_plot)"},
    {"rank_heatmap", SP_PLOT_RANK_HEATMAP, 0, SP_CHART_DEFAULT | SP_CHART_STATS | SP_CHART_PER_RANK,
     sp_heatmap_plot,
     "ranks x regions, colour = rank's total / region's mean over ranks (2 and above "
     "alike), grey where the rank has no timed call"},
    {"speedup", SP_PLOT_SPEEDUP, SP_PLOT_SPEEDUP_ASKED,
     SP_CHART_DEFAULT | SP_CHART_STATS | SP_CHART_FILES, sp_speedup_plot,
     "per common region, mean per call at the smallest x / at each x (files of one x "
     "averaged), ideal x / smallest x (strong scaling: the same problem in every run)"},
    {"weak_scaling", SP_PLOT_WEAK_SCALING, SP_PLOT_WEAK_ASKED, SP_CHART_STATS | SP_CHART_FILES,
     sp_weak_scaling_plot,
     "mean per call / at the smallest x (normalized runtime; the same work per rank in "
     "every run), ideal 1"},
    {"scaling_efficiency", SP_PLOT_SCALING_EFFICIENCY, SP_PLOT_EFFICIENCY_ASKED,
     SP_CHART_STATS | SP_CHART_FILES, sp_scaling_efficiency_plot,
     "speedup / (x / smallest x), ideal 1"},
    {"flame_graph", SP_PLOT_FLAME_GRAPH, 0, SP_CHART_PATHS, sp_flame_graph_plot,
     "call paths as boxes as wide as their inclusive time (the image of --export "
     "folded)"},
    {"duration_timeseries", SP_PLOT_TIMESERIES, 0, SP_CHART_STAMPS, sp_timeseries_plot,
     "each region's call duration per step (k-th call), min..max band over ranks and "
     "the mean (regions with more than one call, by self time)"},
    {"histogram", SP_PLOT_HISTOGRAM, 0, SP_CHART_STATS | SP_CHART_STAMPS, sp_histogram_plot,
     "share of each region's calls per log-spaced duration bin, a small panel per "
     "region"},
    {"timeline_density", SP_PLOT_DENSITY, 0, SP_CHART_STAMPS, sp_density_plot,
     "busy share per region and time bin, mean over ranks"},
};
const int sp_plot_nkinds = (int)(sizeof sp_plot_kinds / sizeof sp_plot_kinds[0]);

unsigned sp_plots_with(unsigned needs) {
  unsigned bits = 0;
  for (int k = 0; k < sp_plot_nkinds; k++)
    if ((sp_plot_kinds[k].needs & needs) == needs) bits |= sp_plot_kinds[k].bit;
  return bits;
}

unsigned sp_plots_word(const char *word) {
  if (!strcmp(word, "all")) return sp_plots_with(0);
  for (int k = 0; k < sp_plot_nkinds; k++)
    if (!strcmp(word, sp_plot_kinds[k].name)) return sp_plot_kinds[k].bit | sp_plot_kinds[k].asked;
  return 0;
}

const char *sp_plots_names(void) {
  static char names[512];
  if (names[0]) return names;
  size_t at = 0;
  for (int k = 0; k < sp_plot_nkinds && at < sizeof names; k++)
    at += (size_t)snprintf(names + at, sizeof names - at, "%s, ", sp_plot_kinds[k].name);
  if (at < sizeof names) snprintf(names + at, sizeof names - at, "or all");
  return names;
}

/* Where the help's texts start and end (the column after the last). */
enum { SP_HELP_INDENT = 25, SP_HELP_WIDTH = 80 };

void sp_help_wrap(FILE *f, const char *text, int first) {
  int col = SP_HELP_INDENT;
  if (!first) fprintf(f, "%*s", SP_HELP_INDENT, "");
  for (const char *p = text; *p;) {
    if (*p == '\n') { /* a line of its own: --summary's LIKWID table */
      fprintf(f, "\n%*s", SP_HELP_INDENT, "");
      col = SP_HELP_INDENT;
      p++;
      continue;
    }
    size_t n = strcspn(p, " \n");
    if (col > SP_HELP_INDENT && col + 1 + (int)n > SP_HELP_WIDTH) {
      fprintf(f, "\n%*s", SP_HELP_INDENT, "");
      col = SP_HELP_INDENT;
    } else if (col > SP_HELP_INDENT) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, n, f);
    col += (int)n;
    p += n;
    while (*p == ' ') p++;
  }
  fputc('\n', f);
}

void sp_help_item(FILE *f, const char *label, const char *text) {
  int len = (int)strlen(label);
  if (!text) {
    fprintf(f, "%s\n", label);
  } else if (len < SP_HELP_INDENT) { /* a space still fits */
    fprintf(f, "%-*s", SP_HELP_INDENT, label);
    sp_help_wrap(f, text, 1);
  } else {
    fprintf(f, "%s\n", label);
    sp_help_wrap(f, text, 0);
  }
}

void sp_plots_help(FILE *f) {
  for (int k = 0; k < sp_plot_nkinds; k++) {
    const sp_plot_kind_t *p = &sp_plot_kinds[k];
    char line[512];
    snprintf(line, sizeof line, "%s%s%s: %s", p->name, p->needs & SP_CHART_DEFAULT ? "*" : "",
             p->needs & SP_CHART_FILES ? "+" : "", p->what);
    sp_help_wrap(f, line, 0);
  }
  char line[512] = "from an aggregate file (no stamps) only";
  size_t at = strlen(line);
  for (int k = 0; k < sp_plot_nkinds && at < sizeof line; k++)
    if (!(sp_plot_kinds[k].needs & (SP_CHART_STAMPS | SP_CHART_PATHS)))
      at += (size_t)snprintf(line + at, sizeof line - at, " %s,", sp_plot_kinds[k].name);
  if (at < sizeof line)
    at += (size_t)snprintf(line + at, sizeof line - at,
                           " drawn from its stored figures (a figure not stored "
                           "left out), and with call paths (profile mode's files)");
  for (int k = 0; k < sp_plot_nkinds && at < sizeof line; k++)
    if (sp_plot_kinds[k].needs & SP_CHART_PATHS)
      at += (size_t)snprintf(line + at, sizeof line - at, " %s,", sp_plot_kinds[k].name);
  if (at < sizeof line) snprintf(line + at - 1, sizeof line - at + 1, " from them");
  sp_help_wrap(f, line, 0);
}
