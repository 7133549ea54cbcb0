/* summary_likwid.c - the LIKWID part of --summary: hardware-counter totals
 * per region and event, printed after the timing table only when the file
 * holds LIKWID results (a file without them prints exactly as before).
 *
 * One row per (region, event), every row self-contained so awk and
 * `column -t` work: values of a rank are summed over its threads first,
 * then sum/min/max run over the selected ranks that have the event for
 * that region. calls and time_s are LIKWID's own call counts and seconds,
 * summed over ranks and threads (repeated on each event row of a region). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

typedef struct sp_lw_acc {
  char *name; /* event name (owned) */
  int ranks;  /* selected ranks that have this event for the region */
  double sum, min, max;
} sp_lw_acc_t;

typedef struct sp_lw_table {
  sp_lw_acc_t *acc;
  int n, cap;
  int64_t calls;
  int64_t clamped; /* saturations of calls (sp_add_sat) */
  double time;
  int printed; /* header written */
} sp_lw_table_t;

/* Accumulator of event name, added when new; NULL on ENOMEM. */
static sp_lw_acc_t *sp_lw_acc_of(sp_lw_table_t *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->acc[i].name, name) == 0) return &t->acc[i];
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    sp_lw_acc_t *a = realloc(t->acc, (size_t)cap * sizeof *a);
    if (!a) return NULL;
    t->acc = a;
    t->cap = cap;
  }
  sp_lw_acc_t *a = &t->acc[t->n];
  memset(a, 0, sizeof *a);
  if (!(a->name = strdup(name))) return NULL;
  t->n++;
  return a;
}

static void sp_lw_table_reset(sp_lw_table_t *t) {
  for (int i = 0; i < t->n; i++) free(t->acc[i].name);
  t->n = 0;
  t->calls = 0;
  t->time = 0;
}

/* Adds one rank's results for the region. */
static int sp_lw_add(sp_lw_table_t *t, const sp_reader_likwid_t *lw) {
  for (int i = 0; i < lw->nthreads; i++) {
    t->calls = sp_add_sat(t->calls, lw->counts[i], &t->clamped);
    t->time += lw->times[i];
  }
  for (int e = 0; e < lw->nevents; e++) {
    double v = 0;
    for (int i = 0; i < lw->nthreads; i++)
      v += lw->events[(size_t)i * (size_t)lw->nevents + (size_t)e];
    sp_lw_acc_t *a = sp_lw_acc_of(t, lw->event_names[e]);
    if (!a) return SP_EXIT_IO;
    a->min = a->ranks == 0 || v < a->min ? v : a->min;
    a->max = a->ranks == 0 || v > a->max ? v : a->max;
    a->sum += v;
    a->ranks++;
  }
  return 0;
}

/* "LIKWID group: A" or, when ranks measured different groups, "A, B". */
static void sp_lw_print_groups(const sp_selection_t *sel) {
  fputs("\nLIKWID group:", stdout);
  for (int j = 0; j < sel->nranks; j++) {
    const char *g = sp_reader_likwid_group(sel->reader, sel->ranks[j]);
    int seen = !g;
    for (int i = 0; !seen && i < j; i++) {
      const char *h = sp_reader_likwid_group(sel->reader, sel->ranks[i]);
      seen = h && strcmp(h, g) == 0;
    }
    if (!seen) printf(" %s", *g ? g : "unknown"); /* marker-file runs name no group */
  }
  putchar('\n');
  printf("%5s %10s %14s %16s %16s %16s %s %s\n", "ranks", "calls", "time_s", "sum", "rank_min",
         "rank_max", "event", "region");
}

/* Event names are LIKWID identifiers; a blank would break the columns. */
static void sp_lw_print_word(const char *s) {
  while (*s) {
    size_t len = sp_utf8_seq((const unsigned char *)s);
    if (len == 0)
      printf("\\x%02x", (unsigned char)*s);
    else if ((unsigned char)*s <= ' ')
      putchar('_');
    else
      fwrite(s, 1, len, stdout);
    s += len ? len : 1;
  }
}

static void sp_lw_print_region(const sp_selection_t *sel, sp_lw_table_t *t, int region) {
  for (int i = 0; i < t->n; i++) {
    if (!t->printed) sp_lw_print_groups(sel);
    t->printed = 1;
    const sp_lw_acc_t *a = &t->acc[i];
    printf("%5d %10lld %14.9f %16.10g %16.10g %16.10g ", a->ranks, (long long)t->calls, t->time,
           a->sum, a->min, a->max);
    sp_lw_print_word(a->name);
    putchar(' ');
    sp_text_put(stdout, sp_reader_region_name(sel->reader, region), SP_TEXT_PLAIN);
    putchar('\n');
  }
}

int sp_summary_likwid_print(const sp_selection_t *sel, const int *regions, int nregions) {
  int any = 0;
  for (int j = 0; j < sel->nranks; j++)
    any |= sp_reader_likwid_group(sel->reader, sel->ranks[j]) != NULL;
  if (!any) return 0;
  sp_lw_table_t t = {0};
  int rc = 0;
  int64_t clamped_rows = 0; /* regions whose call count was clamped */
  for (int i = 0; rc == 0 && i < nregions; i++) {
    sp_lw_table_reset(&t);
    int64_t clamped_before = t.clamped;
    for (int j = 0; rc == 0 && j < sel->nranks; j++) {
      sp_reader_likwid_t lw;
      int err = sp_reader_likwid_load(sel->reader, regions[i], sel->ranks[j], &lw);
      if (err < 0) {
        sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
        rc = sp_exit_for_reader(err);
      } else if (lw.present) {
        rc = sp_lw_add(&t, &lw);
      }
      sp_reader_likwid_free(&lw);
    }
    if (rc == 0) sp_lw_print_region(sel, &t, regions[i]);
    clamped_rows += t.clamped > clamped_before;
  }
  sp_lw_table_reset(&t);
  free(t.acc);
  if (rc == 0 && clamped_rows)
    sp_msg(SP_NORMAL,
           "warning: %s: %lld LIKWID call count(s) exceed int64: clamped to the "
           "int64 limit",
           sel->file, (long long)clamped_rows);
  return rc;
}
