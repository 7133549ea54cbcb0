/* waits_print.c - --waits: the wait states of the MPI calls (waits.h).
 *
 * Two tables: per call path and rank the time in each wait state, most
 * waiting first; then per wait state the causes, (rank, region) pairs
 * largest first. text: the second after a blank line; tsv and csv: the
 * same, each with its header; json: one object {"waits": [...],
 * "causes": [...], "paired": {...}, "unpaired": {...}}. Calls that could
 * not be paired are said once on stderr (and in the JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pproc.h"
#include "waits.h"

/* The cells of a text, tsv or csv row, by the rules of cli/table.c (which
 * the front keeps: common/ calls no file of it): text right-aligned to the
 * column's width, the last column unpadded, names as text_safe.c writes
 * them; csv quoted where it must be. */
static void sp_wcell(sp_table_format_t fmt, const char *s, int width, int first) {
  if (!first) fputs(fmt == SP_TABLE_TSV ? "\t" : fmt == SP_TABLE_CSV ? "," : " ", stdout);
  if (fmt == SP_TABLE_CSV) {
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote) putchar('"');
    sp_text_put(stdout, s, SP_TEXT_CSV);
    if (quote) putchar('"');
    return;
  }
  int len = (int)strlen(s);
  if (fmt == SP_TABLE_TEXT && width > len) printf("%*s", width - len, "");
  sp_text_put(stdout, s, SP_TEXT_PLAIN);
}

static void sp_wjson_str(const char *s) {
  putchar('"');
  sp_text_put(stdout, s, SP_TEXT_JSON);
  putchar('"');
}

/* ns (>= 0) as seconds, exactly. */
static void sp_wsec(char *buf, size_t cap, int64_t ns) {
  snprintf(buf, cap, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
}

static const char *const sp_wait_cols[] = {"late_sender_s",
                                           "late_receiver_s",
                                           "wait_nxn_s",
                                           "wait_barrier_s",
                                           "late_broadcast_s",
                                           "early_reduce_s",
                                           "wait_s",
                                           "rank",
                                           "path"};
static const int sp_wait_widths[] = {15, 15, 12, 14, 16, 14, 12, 5, 0};
static const char *const sp_cause_cols[] = {"state", "wait_s", "calls", "cause_rank",
                                            "cause_region"};
static const int sp_cause_widths[] = {16, 12, 8, 10, 0};

static void sp_wheader(sp_table_format_t fmt, const char *const *cols, const int *widths, int n,
                       const char *note) {
  if (fmt == SP_TABLE_TEXT && note) printf("%s\n", note);
  for (int c = 0; c < n; c++) sp_wcell(fmt, cols[c], c < n - 1 ? widths[c] : 0, c == 0);
  putchar('\n');
}

static const char *sp_region_or_none(const sp_waits_t *w, int32_t g) {
  const char *s = g >= 0 ? sp_reader_region_name(w->reader, g) : NULL;
  return s ? s : "-";
}

static void sp_waits_table1(const sp_waits_t *w, const sp_wrow_t *rows, int64_t n,
                            sp_table_format_t fmt, const char *note) {
  char path[4096], num[48];
  sp_wheader(fmt, sp_wait_cols, sp_wait_widths, 9, note);
  for (int64_t i = 0; i < n; i++) {
    for (int s = 0; s <= SP_WAIT_NSTATES; s++) {
      sp_wsec(num, sizeof num, s < SP_WAIT_NSTATES ? rows[i].ns[s] : rows[i].total);
      sp_wcell(fmt, num, sp_wait_widths[s], s == 0);
    }
    snprintf(num, sizeof num, "%d", w->ranks[rows[i].rank].id);
    sp_wcell(fmt, num, sp_wait_widths[7], 0);
    sp_waits_path_name(w, rows[i].path, path, sizeof path);
    sp_wcell(fmt, path, 0, 0);
    putchar('\n');
  }
}

static void sp_waits_table2(const sp_waits_t *w, const sp_cause_t *c, int64_t n,
                            sp_table_format_t fmt) {
  char num[48];
  sp_wheader(fmt, sp_cause_cols, sp_cause_widths, 5,
             "# causes: per wait state, the late partner's rank and the region it was in "
             "when the waiting started, largest first");
  for (int64_t i = 0; i < n; i++) {
    sp_wcell(fmt, sp_wait_keys[c[i].state], sp_cause_widths[0], 1);
    sp_wsec(num, sizeof num, c[i].ns);
    sp_wcell(fmt, num, sp_cause_widths[1], 0);
    snprintf(num, sizeof num, "%lld", (long long)c[i].calls);
    sp_wcell(fmt, num, sp_cause_widths[2], 0);
    snprintf(num, sizeof num, "%d", c[i].rank);
    sp_wcell(fmt, num, sp_cause_widths[3], 0);
    sp_wcell(fmt, sp_region_or_none(w, c[i].region), 0, 0);
    putchar('\n');
  }
}

/* The JSON object of both tables and the counts. */
static void sp_waits_json(const sp_waits_t *w, const sp_wrow_t *rows, int64_t n,
                          const sp_cause_t *c, int64_t nc) {
  char path[4096], num[48];
  fputs("{\"waits\": [", stdout);
  for (int64_t i = 0; i < n; i++) {
    printf("%s\n{\"rank\":%d,\"path\":", i ? "," : "", w->ranks[rows[i].rank].id);
    sp_waits_path_name(w, rows[i].path, path, sizeof path);
    sp_wjson_str(path);
    for (int s = 0; s < SP_WAIT_NSTATES; s++) {
      sp_wsec(num, sizeof num, rows[i].ns[s]);
      printf(",\"%s_s\":%s", sp_wait_keys[s], num);
    }
    sp_wsec(num, sizeof num, rows[i].total);
    printf(",\"wait_s\":%s", num);
    putchar('}');
  }
  fputs("],\n\"causes\": [", stdout);
  for (int64_t i = 0; i < nc; i++) {
    sp_wsec(num, sizeof num, c[i].ns);
    printf("%s\n{\"state\":\"%s\",\"wait_s\":%s", i ? "," : "", sp_wait_keys[c[i].state], num);
    printf(",\"calls\":%lld,\"cause_rank\":%d,\"cause_region\":", (long long)c[i].calls, c[i].rank);
    if (c[i].region >= 0)
      sp_wjson_str(sp_region_or_none(w, c[i].region));
    else
      fputs("null", stdout);
    putchar('}');
  }
  printf("],\n\"paired\": {\"messages\":%lld,\"collectives\":%lld},\n\"unpaired\": {",
         (long long)w->pairs, (long long)w->colls);
  static const char *const keys[SP_UNP_NREASONS] = {"partner_not_recorded", "rank_not_profiled",
                                                    "nonblocking",          "not_recorded",
                                                    "no_message",           "not_completed"};
  for (int u = 0; u < SP_UNP_NREASONS; u++)
    printf("%s\"%s\":%lld", u ? "," : "", keys[u], (long long)w->unpaired[u]);
  fputs("}}\n", stdout);
}

/* Says once how many calls were left unpaired and why. */
static void sp_waits_say_unpaired(const sp_waits_t *w) {
  for (int u = 0; u < SP_UNP_NREASONS; u++)
    if (w->unpaired[u])
      sp_msg(SP_NORMAL, "--waits: %lld MPI call%s left unpaired: %s%s", (long long)w->unpaired[u],
             w->unpaired[u] == 1 ? "" : "s", sp_unpaired_text[u],
             u == SP_UNP_NONBLOCKING
                 ? " (and the blocking calls of the same communicator on those ranks)"
                 : "");
}

int sp_waits_print(const sp_selection_t *sel, const sp_options_t *o) {
  sp_waits_t w;
  int rc = sp_waits_build(sel->reader, &w);
  if (rc) {
    sp_msg(SP_QUIET, "%s: %s", sel->file, sp_reader_errmsg(sel->reader));
    sp_waits_free(&w);
    return sp_exit_for_reader(rc);
  }
  if (w.mpi_calls == 0 || !w.has_tags) {
    sp_msg(SP_QUIET,
           "%s: %s: no wait states without them (record with SCOPE_PROFILER_PROFILE_MPI=1 and "
           "time_trace = 1; docs/wait-states.md)",
           sel->file,
           w.mpi_calls == 0 ? "no MPI call records"
                            : "its MPI calls have no tags and communicators (an older file)");
    sp_waits_free(&w);
    return SP_EXIT_DATA;
  }
  sp_waits_say_unpaired(&w);
  sp_wrow_t *rows = NULL;
  sp_cause_t *causes = NULL;
  int64_t n = 0, nc = 0;
  rc = sp_waits_rows(&w, sel->ranks, sel->nranks, &rows, &n);
  if (rc == 0) rc = sp_waits_causes(&w, sel->ranks, sel->nranks, &causes, &nc);
  if (rc == 0 && o->table == SP_TABLE_JSON) {
    sp_waits_json(&w, rows, n, causes, nc);
  } else if (rc == 0) {
    char note[256];
    snprintf(note, sizeof note,
             "# wait states (docs/wait-states.md); paired: %lld messages, %lld collective "
             "calls; stamps on rank 0's clock",
             (long long)w.pairs, (long long)w.colls);
    sp_waits_table1(&w, rows, n, o->table, note);
    putchar('\n');
    sp_waits_table2(&w, causes, nc, o->table);
  }
  if (rc) sp_msg(SP_QUIET, "out of memory");
  free(rows);
  free(causes);
  sp_waits_free(&w);
  return rc;
}
