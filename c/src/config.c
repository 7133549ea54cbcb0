/* config.c - defaults, environment overrides and checks of the setup options.
 *
 * Environment variables win over the program's sp_config so a job script can
 * change profiling without recompiling (README "Settings"). Every
 * SCOPE_PROFILER_* setting of the core is read and checked here, at
 * sp_setup, into st->cfg and st->set; no other file reads them. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_target.h"
#include "sp_internal.h"

/* The longest sampling period: an hour. */
enum { SP_SAMPLE_MS_MAX = 3600000 };

void sp_config_init(sp_config *cfg) {
  if (!cfg) return;
  cfg->profiling_activated = 1;
  cfg->use_likwid = 0;
  cfg->time_trace = 1;
  cfg->flush_to_disk = 1;
  cfg->buffer_limit = 100000;
  cfg->file_path = "profiling_data.h5";
  cfg->profile_mpi = 0;
  cfg->aggregate = 0;
  cfg->sample_ms = 0;
}

/* Parses a boolean variable: 1/0, true/false, yes/no, on/off. */
static void sp_env_bool(const char *var, int *field) {
  const char *v = getenv(var);
  if (!v || !*v) return;
  if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on")) {
    *field = 1;
  } else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
             !strcasecmp(v, "off")) {
    *field = 0;
  } else {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%s (expected 0 or 1)", var, v);
  }
}

static void sp_env_int64(const char *var, int64_t least, int64_t *field) {
  const char *v = getenv(var);
  if (!v || !*v) return;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || *end || x < least) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%s (expected an integer >= %lld)", var, v,
            (long long)least);
    return;
  }
  *field = (int64_t)x;
}

/* sp_env_int64, and a value above most is clamped to it, with a message
 * (a deadline or an allocation computed from it must not overflow). */
static void sp_env_int64_at_most(const char *var, int64_t least, int64_t most, const char *unit,
                                 int64_t *field) {
  sp_env_int64(var, least, field);
  if (*field <= most) return;
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "%s=%lld is more than %lld %s: clamped to %lld", var,
          (long long)*field, (long long)most, unit, (long long)most);
  *field = most;
}

/* Index of VAR's value among choices[0..n): 0 (choices[0] is the default)
 * when VAR is unset or empty, and after reporting a value not among them. */
static int sp_env_choice(const char *var, const char *const *choices, int n) {
  const char *v = getenv(var);
  if (!v || !*v) return 0;
  for (int i = 0; i < n; i++)
    if (strcmp(v, choices[i]) == 0) return i;
  char expected[128] = "";
  size_t used = 0;
  for (int i = 0; i < n && used < sizeof expected; i++)
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s",
                             i == 0       ? ""
                             : i + 1 == n ? " or "
                                          : ", ",
                             choices[i]);
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring %s=%s (expected %s)", var, v, expected);
  return 0;
}

/* Finalize's ways of writing: who creates the layout, how the stamps are
 * written and through how large a buffer (finalize.c). */
static void sp_env_finalize_ways(sp_settings_t *set) {
  static const char *const layout[] = {"auto", "root", "collective"};
  set->layout_collective = sp_env_choice("SCOPE_PROFILER_METADATA", layout, 3) == 2;
  /* "independent" means auto: both write each rank's blocks on its own. */
  static const char *const raw[] = {"auto", "independent", "posix", "mpiio", "collective"};
  static const int raw_mode[] = {-1, -1, SP_RAW_POSIX, SP_RAW_MPIIO, SP_RAW_COLLECTIVE};
  set->raw_write = raw_mode[sp_env_choice("SCOPE_PROFILER_RAW_WRITE", raw, 5)];
  set->round_bytes = 0;
  sp_env_int64_at_most("SCOPE_PROFILER_ROUND_BYTES", 4096, 1 << 30, "bytes", &set->round_bytes);
  set->finalize_timeout = 600;
  sp_env_int64_at_most("SCOPE_PROFILER_FINALIZE_TIMEOUT", 1, 365 * 86400, "s (a year)",
                       &set->finalize_timeout);
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
  sp_env_finalize_ways(set);
  set->async_flush = 1;
  sp_env_bool("SCOPE_PROFILER_ASYNC_FLUSH", &set->async_flush);
  static const char *const clocks[] = {"auto", "tsc", "monotonic"};
  set->clock = sp_env_choice("SCOPE_PROFILER_CLOCK", clocks, 3);
  set->verbose = 0;
  sp_env_bool("SCOPE_PROFILER_VERBOSE", &set->verbose);
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
  if (!cfg.file_path || !*cfg.file_path) cfg.file_path = "profiling_data.h5";
  sp_env_bool("SCOPE_PROFILER_ENABLE", &cfg.profiling_activated);
  sp_env_bool("SCOPE_PROFILER_TIME_TRACE", &cfg.time_trace);
  sp_env_bool("SCOPE_PROFILER_FLUSH", &cfg.flush_to_disk);
  sp_env_bool("SCOPE_PROFILER_LIKWID", &cfg.use_likwid);
  sp_env_bool("SCOPE_PROFILER_PROFILE_MPI", &cfg.profile_mpi);
  sp_env_bool("SCOPE_PROFILER_AGGREGATE", &cfg.aggregate);
  sp_env_int64("SCOPE_PROFILER_BUFFER_LIMIT", 1, &cfg.buffer_limit);
  int64_t sample_ms = cfg.sample_ms;
  sp_env_int64("SCOPE_PROFILER_SAMPLE_MS", 0, &sample_ms);
  if (sample_ms > SP_SAMPLE_MS_MAX) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "ignoring SCOPE_PROFILER_SAMPLE_MS=%lld (at most %d)",
            (long long)sample_ms, SP_SAMPLE_MS_MAX);
  } else {
    cfg.sample_ms = (int)sample_ms;
  }
  sp_env_settings(&st->set);
  const char *env_path = getenv("SCOPE_PROFILER_FILE");
  if (env_path && *env_path) cfg.file_path = env_path;

  if (cfg.aggregate != 0 && cfg.aggregate != 1) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "aggregate must be 0 or 1 (got %d)", cfg.aggregate);
    return SP_EINVAL;
  }
  if (cfg.sample_ms < 0 || cfg.sample_ms > SP_SAMPLE_MS_MAX) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "sample_ms must be 0 (off) to %d ms (got %d)",
            SP_SAMPLE_MS_MAX, cfg.sample_ms);
    return SP_EINVAL;
  }
  if (cfg.buffer_limit < 1) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "buffer_limit must be >= 1 (got %lld)",
            (long long)cfg.buffer_limit);
    return SP_EINVAL;
  }
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
