/* config.c - defaults, environment overrides and checks of the setup options.
 *
 * Environment variables win over the program's sp_config so a job script can
 * change profiling without recompiling (docs/settings.md). Every
 * SCOPE_PROFILER_* setting of the core is read and checked here, at
 * sp_setup, into st->cfg and st->set; no other file reads them. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_target.h"
#include "sp_internal.h"

#include "settings.def"

/* How a row of settings.def is stored and checked. */
typedef enum {
  SP_KIND_BOOL,
  SP_KIND_AUTO,
  SP_KIND_INT,
  SP_KIND_INT64,
  SP_KIND_CHOICE,
  SP_KIND_TEXT
} sp_kind_t;
typedef enum { SP_WHERE_CONFIG, SP_WHERE_SETTINGS, SP_WHERE_OWN } sp_where_t;
typedef enum { SP_OVER_IGNORE, SP_OVER_CLAMP } sp_over_t;

typedef struct sp_setting_row {
  const char *var;  /* SCOPE_PROFILER_<env> */
  sp_where_t where; /* the struct it lands in */
  size_t offset;    /* of its field there */
  sp_kind_t kind;
  int64_t def;         /* BOOL, INT, INT64 */
  int64_t low, high;   /* INT, INT64 */
  sp_over_t over;      /* a value above high */
  const char *unit;    /* of high, for the clamp's message */
  const char *choices; /* CHOICE: '|'-separated, the first the default */
  const char *shown;   /* the default as docs/settings.md shows it (a TEXT field's) */
} sp_setting_row_t;

#define SP_OFF_CONFIG(f) offsetof(sp_config, f)
#define SP_OFF_SETTINGS(f) offsetof(sp_settings_t, f)
#define SP_OFF_OWN(f) 0
#define SP_SETTING_ROW(env, where, field, kind, def, low, high, over, unit, choices, shown, doc) \
  {"SCOPE_PROFILER_" #env,                                                                       \
   SP_WHERE_##where,                                                                             \
   SP_OFF_##where(field),                                                                        \
   SP_KIND_##kind,                                                                               \
   def,                                                                                          \
   low,                                                                                          \
   high,                                                                                         \
   SP_OVER_##over,                                                                               \
   unit,                                                                                         \
   choices,                                                                                      \
   shown},
static const sp_setting_row_t sp_setting_rows[] = {SP_SETTINGS(SP_SETTING_ROW)};
enum { SP_NSETTINGS = sizeof sp_setting_rows / sizeof sp_setting_rows[0] };

/* The row of VAR; settings.def holds every variable this file reads. */
static const sp_setting_row_t *sp_setting_row(const char *var) {
  for (int i = 0; i < SP_NSETTINGS; i++)
    if (strcmp(sp_setting_rows[i].var, var) == 0) return &sp_setting_rows[i];
  return NULL;
}

/* Stores a row's default into its field of base. */
static void sp_setting_default(const sp_setting_row_t *r, char *base) {
  void *f = base + r->offset;
  switch (r->kind) {
  case SP_KIND_INT64:
    *(int64_t *)f = r->def;
    break;
  case SP_KIND_TEXT:
    *(const char **)f = r->shown;
    break;
  case SP_KIND_CHOICE:
    *(int *)f = 0;
    break;
  default:
    *(int *)f = (int)r->def;
    break;
  }
}

void sp_config_init(sp_config *cfg) {
  if (!cfg) return;
  memset(cfg, 0, sizeof *cfg);
  for (int i = 0; i < SP_NSETTINGS; i++)
    if (sp_setting_rows[i].where == SP_WHERE_CONFIG)
      sp_setting_default(&sp_setting_rows[i], (char *)cfg);
}

/* A boolean value: 1/0, true/false, yes/no, on/off; -1 for anything else. */
static int sp_bool_value(const char *v) {
  if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
    return 1;
  if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
    return 0;
  return -1;
}

/* Parses a boolean variable, or with auto also "auto" (stored as -1). */
static void sp_env_bool(const char *var, int *field, int with_auto) {
  const char *v = getenv(var);
  if (!v || !*v) return;
  int is_auto = with_auto && !strcasecmp(v, "auto");
  int b = is_auto ? -1 : sp_bool_value(v);
  if (is_auto || b >= 0)
    *field = b;
  else
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%s (expected 0%s1)", var, v,
            with_auto ? ", auto or " : " or ");
}

/* An integer variable of row r into *field: below r->low it is ignored,
 * above r->high ignored or clamped (a deadline or an allocation computed
 * from it must not overflow), each with a message. */
static void sp_env_integer(const sp_setting_row_t *r, int64_t *field) {
  const char *v = getenv(r->var);
  if (!v || !*v) return;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || *end || x < r->low) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%s (expected an integer >= %lld)", r->var,
            v, (long long)r->low);
    return;
  }
  if (x > r->high && r->over == SP_OVER_IGNORE) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%lld (at most %lld)", r->var, x,
            (long long)r->high);
    return;
  }
  if (x > r->high) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "%s=%lld is more than %lld %s: clamped to %lld", r->var,
            x, (long long)r->high, r->unit, (long long)r->high);
    x = r->high;
  }
  *field = (int64_t)x;
}

/* Index of VAR's value among the '|'-separated choices: 0 (the first is
 * the default) when VAR is unset or empty, and after reporting a value not
 * among them. */
static int sp_env_choice(const char *var, const char *choices) {
  const char *v = getenv(var);
  if (!v || !*v) return -1;
  size_t vlen = strlen(v);
  int i = 0;
  for (const char *c = choices; *c; i++) {
    size_t n = strcspn(c, "|");
    if (n == vlen && strncmp(c, v, n) == 0) return i;
    c += n + (c[n] == '|');
  }
  char expected[128] = "";
  size_t used = 0;
  int n = i;
  i = 0;
  for (const char *c = choices; *c && used < sizeof expected; i++) {
    size_t len = strcspn(c, "|");
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%.*s",
                             i == 0       ? ""
                             : i + 1 == n ? " or "
                                          : ", ",
                             (int)len, c);
    c += len + (c[len] == '|');
  }
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%s (expected %s)", var, v, expected);
  return -1;
}

/* Reads the variable of row r into its field of base, over the value there. */
static void sp_setting_env(const sp_setting_row_t *r, char *base) {
  void *f = base + r->offset;
  switch (r->kind) {
  case SP_KIND_BOOL:
  case SP_KIND_AUTO: /* or "auto" (-1) */
    sp_env_bool(r->var, (int *)f, r->kind == SP_KIND_AUTO);
    break;
  case SP_KIND_INT64:
    sp_env_integer(r, (int64_t *)f);
    break;
  case SP_KIND_INT: {
    int64_t x = *(int *)f;
    sp_env_integer(r, &x);
    *(int *)f = (int)x;
    break;
  }
  case SP_KIND_CHOICE: { /* unset or not a choice: the value there stays */
    int x = sp_env_choice(r->var, r->choices);
    if (x >= 0) *(int *)f = x;
    break;
  }
  case SP_KIND_TEXT: {
    const char *v = getenv(r->var);
    if (v && *v) *(const char **)f = v;
    break;
  }
  }
}

int sp__config_openmp_env(void) {
  const char *v = getenv("SCOPE_PROFILER_OPENMP");
  if (!v || !*v) return 0;
  size_t vlen = strlen(v);
  int i = 0;
  for (const char *c = sp_setting_row("SCOPE_PROFILER_OPENMP")->choices; *c; i++) {
    size_t n = strcspn(c, "|");
    if (n == vlen && strncmp(c, v, n) == 0) return i;
    c += n + (c[n] == '|');
  }
  return SP_OPENMP_ON;
}

/* The variables of every row stored in `where`, over the fields of base. */
static void sp_env_rows(sp_where_t where, char *base) {
  for (int i = 0; i < SP_NSETTINGS; i++)
    if (sp_setting_rows[i].where == where) sp_setting_env(&sp_setting_rows[i], base);
}

/* A public field's bounds, from its row (the same the variable has). */
static int sp_config_int_ok(const char *var, const char *field, int64_t value) {
  const sp_setting_row_t *r = sp_setting_row(var);
  if (value >= r->low && value <= r->high) return 1;
  if (r->kind == SP_KIND_BOOL)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "%s must be 0 or 1 (got %lld)", field, (long long)value);
  else if (r->kind == SP_KIND_CHOICE)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "%s must be 0 to %lld, one of %s (got %lld)", field,
            (long long)r->high, r->choices, (long long)value);
  else if (r->kind == SP_KIND_AUTO)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "%s must be -1 (auto), 0 or 1 (got %lld)", field,
            (long long)value);
  else if (r->low == 0)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "%s must be 0 (off) to %lld %s (got %lld)", field,
            (long long)r->high, r->unit, (long long)value);
  else
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "%s must be >= %lld (got %lld)", field, (long long)r->low,
            (long long)value);
  return 0;
}

/* SCOPE_PROFILER_FLUSH_SIGNALS=TERM,USR1 (names or numbers, "SIG" optional)
 * into signal numbers; signal_flush.c installs the handlers. */
static void sp_env_flush_signals(sp_settings_t *set) {
  set->nflush_signals = 0;
  const char *v = getenv("SCOPE_PROFILER_FLUSH_SIGNALS");
  if (!v || !*v) return;
  static const struct {
    const char *name;
    int sig;
  } names[] = {{"TERM", SIGTERM}, {"INT", SIGINT},   {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
               {"HUP", SIGHUP},   {"XCPU", SIGXCPU}, {"QUIT", SIGQUIT}};
  char buf[256];
  snprintf(buf, sizeof buf, "%s", v);
  for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok;
       tok = strtok_r(NULL, ", ", &save)) {
    if (!strncmp(tok, "SIG", 3)) tok += 3;
    int sig = atoi(tok);
    for (size_t i = 0; !sig && i < sizeof names / sizeof names[0]; i++)
      if (!strcmp(tok, names[i].name)) sig = names[i].sig;
    if (sp__signal_is_fault(sig)) {
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
              "SCOPE_PROFILER_FLUSH_SIGNALS: '%s' is signal %d, a fault or abort signal: not "
              "handled (a crash must end where it happens; its events are in the spill file "
              "up to the last full buffer)",
              tok, sig);
      continue;
    }
    if (sig <= 0 || sig >= 65 || sig == SIGKILL || sig == SIGSTOP ||
        set->nflush_signals >= (int)(sizeof set->flush_signals / sizeof(int))) {
      sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "SCOPE_PROFILER_FLUSH_SIGNALS: cannot handle '%s'",
              tok);
      continue;
    }
    set->flush_signals[set->nflush_signals++] = sig;
  }
}

/* The settings that are not sp_config fields. */
static void sp_env_settings(sp_settings_t *set) {
  for (int i = 0; i < SP_NSETTINGS; i++)
    if (sp_setting_rows[i].where == SP_WHERE_SETTINGS)
      sp_setting_default(&sp_setting_rows[i], (char *)set);
  sp_env_rows(SP_WHERE_SETTINGS, (char *)set);
  set->layout_collective = set->metadata == 2;
  /* "independent" means auto: both write each rank's blocks on its own. */
  static const int raw_mode[] = {-1, -1, SP_RAW_POSIX, SP_RAW_MPIIO, SP_RAW_COLLECTIVE};
  set->raw_write = raw_mode[set->raw_write_choice];
  sp_env_flush_signals(set);
  const char *marker = getenv("SCOPE_PROFILER_LIKWID_MARKER_FILE");
  snprintf(set->likwid_marker_file, sizeof set->likwid_marker_file, "%s", marker ? marker : "");
}

/* Directory part of path ("." when there is none). */
static void sp_dirname(const char *path, char *out, size_t cap) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(out, cap, ".");
  } else if (slash == path) {
    snprintf(out, cap, "/");
  } else {
    snprintf(out, cap, "%.*s", (int)(slash - path), path);
  }
}

/* Finalize writes "<name>.partial" (and a unique suffix) next to the file
 * and spills into "<name>.spill": a name within the file system's limit
 * whose derived names are not could never be written, which would only
 * show at finalize, after the whole run. */
enum { SP_DERIVED_SUFFIX_MAX = 32 };
static int sp_name_too_long(const char *path) {
  char dir[SP_PATH_MAX];
  sp_dirname(path, dir, sizeof dir);
  const char *slash = strrchr(path, '/');
  size_t len = strlen(slash ? slash + 1 : path);
  long name_max = pathconf(dir, _PC_NAME_MAX);
  if (name_max <= 0) name_max = 255; /* unknown, or no such directory (reported later) */
  if ((long)len + SP_DERIVED_SUFFIX_MAX <= name_max) return 0;
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
          "file name of '%s' too long: %zu bytes, at most %ld here, so that the names derived "
          "from it (<name>.partial..., <name>.spill) fit the file system's limit of %ld",
          path, len, name_max - SP_DERIVED_SUFFIX_MAX, name_max);
  return 1;
}

int sp__config_resolve(const sp_config *in, sp_state_t *st) {
  sp_config cfg;
  if (in) {
    cfg = *in;
  } else {
    sp_config_init(&cfg);
  }
  if (!cfg.file_path || !*cfg.file_path)
    cfg.file_path = sp_setting_row("SCOPE_PROFILER_FILE")->shown;
  sp_env_rows(SP_WHERE_CONFIG, (char *)&cfg);
  sp_env_settings(&st->set);

  if (!sp_config_int_ok("SCOPE_PROFILER_AGGREGATE", "aggregate", cfg.aggregate) ||
      !sp_config_int_ok("SCOPE_PROFILER_REDUCE", "reduce", cfg.reduce) ||
      !sp_config_int_ok("SCOPE_PROFILER_SAMPLE_MS", "sample_ms", cfg.sample_ms) ||
      !sp_config_int_ok("SCOPE_PROFILER_LAYOUT", "layout", cfg.layout) ||
      !sp_config_int_ok("SCOPE_PROFILER_TRACE_MAX_MB", "trace_max_mb", cfg.trace_max_mb) ||
      !sp_config_int_ok("SCOPE_PROFILER_OPENMP", "openmp", cfg.openmp) ||
      !sp_config_int_ok("SCOPE_PROFILER_BUFFER_LIMIT", "buffer_limit", cfg.buffer_limit))
    return SP_EINVAL;
  if (strlen(cfg.file_path) >= sizeof st->file_path) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "file_path longer than %d bytes", SP_PATH_MAX - 1);
    return SP_EINVAL;
  }
  if (st->forked) {
    /* A forked child's own session never writes its parent's file
     * (fork_guard.c): "<stem>.<pid><ext>". */
    const char *slash = strrchr(cfg.file_path, '/');
    const char *dot = strrchr(slash ? slash + 1 : cfg.file_path, '.');
    int stem = dot && dot != (slash ? slash + 1 : cfg.file_path) ? (int)(dot - cfg.file_path)
                                                                 : (int)strlen(cfg.file_path);
    if (snprintf(st->file_path, sizeof st->file_path, "%.*s.%ld%s", stem, cfg.file_path,
                 (long)getpid(), cfg.file_path + stem) >= (int)sizeof st->file_path) {
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "file_path longer than %d bytes", SP_PATH_MAX - 1);
      return SP_EINVAL;
    }
  } else {
    snprintf(st->file_path, sizeof st->file_path, "%s", cfg.file_path);
  }
  cfg.file_path = st->file_path;
  if (sp_name_too_long(st->file_path)) return SP_EINVAL;

  const char *env_spill = getenv("SCOPE_PROFILER_SPILL_DIR");
  int n;
  if (env_spill && *env_spill) {
    n = snprintf(st->spill_dir, sizeof st->spill_dir, "%s", env_spill);
  } else {
    n = snprintf(st->spill_dir, sizeof st->spill_dir, "%s.spill", st->file_path);
  }
  if (n < 0 || (size_t)n >= sizeof st->spill_dir) return SP_EINVAL;
  st->cfg = cfg;
  /* Absolute paths; /dev/null discards; no FIFO or device is replaced. */
  int target = sp__out_target_resolve(st, env_spill && *env_spill);
  if (target != 0 && target != SP_EPATH) return target;
  /* finalize replaces this file (a previous run's), not one another run
   * writing to the same path puts there meanwhile (out_temp.c). */
  sp__out_id_take(st->file_path, &st->out_at_setup);

  /* Checked now, not after a 10-hour run: the output directory must be
   * writable (the file itself is created only at finalize). */
  char dir[SP_PATH_MAX];
  sp_dirname(st->file_path, dir, sizeof dir);
  st->path_ok = st->discard || access(dir, W_OK | X_OK) == 0;
  if (!st->path_ok && cfg.profiling_activated) {
    int err = errno;
    /* The spill files would sit in the same unwritable directory and every
     * flush would be lost: keep them where they can be recovered from. */
    if (!(env_spill && *env_spill)) {
      const char *tmp = getenv("TMPDIR");
      const char *base = strrchr(st->file_path, '/');
      if (snprintf(st->spill_dir, sizeof st->spill_dir, "%s/%s.%ld.spill",
                   tmp && *tmp ? tmp : "/tmp", base ? base + 1 : st->file_path,
                   (long)getpid()) >= (int)sizeof st->spill_dir)
        snprintf(st->spill_dir, sizeof st->spill_dir, "/tmp/scope-profiler.%ld.spill",
                 (long)getpid());
    }
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "output directory '%s' of '%s' is not writable (%s); profiling continues with "
            "spill files in '%s', but sp_finalize will fail unless the directory becomes "
            "writable (SCOPE_PROFILER_FILE chooses another file)",
            dir, st->file_path, strerror(err), st->spill_dir);
    return SP_EPATH;
  }
  return target;
}
