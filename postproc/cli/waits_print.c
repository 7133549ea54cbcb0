/* waits_print.c - --waits: the wait states of the MPI calls (common/waits.h).
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

static const sp_col_t sp_wait_cols[] = {{"late_sender_s", SP_COL_SEC, 15},
                                        {"late_receiver_s", SP_COL_SEC, 15},
                                        {"wait_nxn_s", SP_COL_SEC, 12},
                                        {"wait_barrier_s", SP_COL_SEC, 14},
                                        {"late_broadcast_s", SP_COL_SEC, 16},
                                        {"early_reduce_s", SP_COL_SEC, 14},
                                        {"wait_s", SP_COL_SEC, 12},
                                        {"rank", SP_COL_INT, 5},
                                        {"path", SP_COL_STR, 0}};
static const sp_col_t sp_cause_cols[] = {{"state", SP_COL_STR, 16},
                                         {"wait_s", SP_COL_SEC, 12},
                                         {"calls", SP_COL_INT, 8},
                                         {"cause_rank", SP_COL_INT, 10},
                                         {"cause_region", SP_COL_STR, 0}};

static const char *sp_region_or_none(const sp_waits_t *w, int32_t g) {
  const char *s = g >= 0 ? sp_reader_region_name(w->reader, g) : NULL;
  return s ? s : "-";
}

static void sp_waits_table1(const sp_waits_t *w, const sp_wrow_t *rows, int64_t n,
                            sp_table_format_t fmt, const char *note) {
  sp_table_t t;
  char path[4096];
  sp_table_begin(&t, fmt, sp_wait_cols, 9, note);
  for (int64_t i = 0; i < n; i++) {
    sp_cell_t c[9];
    memset(c, 0, sizeof c);
    for (int s = 0; s < SP_WAIT_NSTATES; s++) c[s].d = rows[i].ns[s] / 1e9;
    c[6].d = rows[i].total / 1e9;
    c[7].i = w->ranks[rows[i].rank].id;
    sp_waits_path_name(w, rows[i].path, path, sizeof path);
    c[8].s = path;
    sp_table_row(&t, c);
  }
}

static void sp_waits_table2(const sp_waits_t *w, const sp_cause_t *c, int64_t n,
                            sp_table_format_t fmt) {
  sp_table_t t;
  sp_table_begin(&t, fmt, sp_cause_cols, 5,
                 "# causes: per wait state, the late partner's rank and the region it was in "
                 "when the waiting started, largest first");
  for (int64_t i = 0; i < n; i++) {
    sp_cell_t v[5];
    memset(v, 0, sizeof v);
    v[0].s = sp_wait_keys[c[i].state];
    v[1].d = c[i].ns / 1e9;
    v[2].i = c[i].calls;
    v[3].i = c[i].rank;
    v[4].s = sp_region_or_none(w, c[i].region);
    sp_table_row(&t, v);
  }
}

/* The JSON object of both tables and the counts. */
static void sp_waits_json(const sp_waits_t *w, const sp_wrow_t *rows, int64_t n,
                          const sp_cause_t *c, int64_t nc) {
  char path[4096];
  fputs("{\"waits\": [", stdout);
  for (int64_t i = 0; i < n; i++) {
    printf("%s\n{\"rank\":%d,\"path\":", i ? "," : "", w->ranks[rows[i].rank].id);
    sp_waits_path_name(w, rows[i].path, path, sizeof path);
    sp_json_put_string(stdout, path);
    for (int s = 0; s < SP_WAIT_NSTATES; s++) {
      printf(",\"%s_s\":", sp_wait_keys[s]);
      sp_json_put_seconds(stdout, rows[i].ns[s]);
    }
    fputs(",\"wait_s\":", stdout);
    sp_json_put_seconds(stdout, rows[i].total);
    putchar('}');
  }
  fputs("],\n\"causes\": [", stdout);
  for (int64_t i = 0; i < nc; i++) {
    printf("%s\n{\"state\":\"%s\",\"wait_s\":", i ? "," : "", sp_wait_keys[c[i].state]);
    sp_json_put_seconds(stdout, c[i].ns);
    printf(",\"calls\":%lld,\"cause_rank\":%d,\"cause_region\":", (long long)c[i].calls, c[i].rank);
    if (c[i].region >= 0)
      sp_json_put_string(stdout, sp_region_or_none(w, c[i].region));
    else
      fputs("null", stdout);
    putchar('}');
  }
  printf("],\n\"paired\": {\"messages\":%lld,\"collectives\":%lld},\n\"unpaired\": {",
         (long long)w->pairs, (long long)w->colls);
  static const char *const keys[SP_UNP_NREASONS] = {"partner_not_recorded", "rank_not_profiled",
                                                    "nonblocking", "not_recorded"};
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
