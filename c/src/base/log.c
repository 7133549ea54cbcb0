/* log.c - the one place messages leave the library.
 *
 * A profiler inside a long simulation must not flood its output: each kind
 * of message is logged once per session (misuse is still counted). */
#include <stdio.h>

#include "sp_internal.h"

static sp_log_fn sp_log_user_fn;
static void *sp_log_user_data;
/* Bit per sp_log_kind_t already logged in this session. */
static uint32_t sp_log_once_bits;

void sp_log_set(sp_log_fn fn, void *user) {
  sp_log_user_fn = fn;
  sp_log_user_data = user;
}

void sp__log_reset_once(void) { __atomic_store_n(&sp_log_once_bits, 0u, __ATOMIC_RELAXED); }

void sp__log(int level, sp_log_kind_t kind, const char *fmt, ...) {
  if (kind != SP_LOG_ALWAYS) {
    uint32_t bit = 1u << (unsigned)kind;
    uint32_t before = __atomic_fetch_or(&sp_log_once_bits, bit, __ATOMIC_RELAXED);
    if (before & bit) return;
  }
  int saved_errno = errno; /* a failed stderr must not change the host's errno */
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (sp_log_user_fn) {
    sp_log_user_fn(level, msg, sp_log_user_data);
    errno = saved_errno;
    return;
  }
  static const char *const level_names[] = {
      [SP_LOG_ERROR] = "error", [SP_LOG_WARNING] = "warning", [SP_LOG_INFO] = "info"};
  const char *lv = (level >= SP_LOG_ERROR && level <= SP_LOG_INFO) ? level_names[level] : "info";
  sp__io_own++; /* the library's own I/O: never recorded (profile_io) */
  if (sp__state.rank >= 0 && sp__state.size > 1)
    fprintf(stderr, "scope-profiler: [rank %d] %s: %s\n", sp__state.rank, lv, msg);
  else
    fprintf(stderr, "scope-profiler: %s: %s\n", lv, msg);
  sp__io_own--;
  errno = saved_errno;
}
