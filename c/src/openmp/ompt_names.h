/* ompt_names.h - the regions of the OpenMP tool's constructs (ompt_names.c). */
#ifndef SP_OMPT_NAMES_H
#define SP_OMPT_NAMES_H

#include "ompt_room.h"

/* The region of construct kind at code pointer cp for thread t, registered
 * on the thread's first sight of it in this session; -1 on failure. */
SP_HIDDEN int32_t sp__omp_handle(sp_omp_thread_t *t, sp_omp_kind_t kind, const void *cp);

#endif
