/* state.c - the data every room reads, defined on the ground floor so that
 * no room links up to another for it: the process's profiling state
 * (sp__state, and the hot path's switches; the session sets them) and the
 * table through which a lower room calls up a floor (sp__up,
 * sp_internal.h; docs/design.md, "Rooms"; the session fills it in
 * session.c). */
#include "sp_internal.h"

volatile int sp__enabled;
volatile int sp__mode;
volatile unsigned sp__session;

sp_state_t sp__state = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .rank = -1,
    .size = 1,
};

sp_calls_up_t sp__up;
