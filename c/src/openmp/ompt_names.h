/* ompt_names.h - each thread's record of the OpenMP tool, and the regions
 * of its constructs (ompt_names.c). */
#ifndef SP_OMPT_NAMES_H
#define SP_OMPT_NAMES_H

#include "ompt_room.h"

/* The calling thread's record (allocated on first use; NULL without memory). */
SP_HIDDEN sp_omp_thread_t *sp__omp_thread(void);
/* Frees the calling thread's record (the runtime's thread_end). */
SP_HIDDEN void sp__omp_thread_end(void);

/* The region of construct kind at code pointer cp for thread t, registered
 * on the thread's first sight of it in this session; -1 on failure. */
SP_HIDDEN int32_t sp__omp_handle(sp_omp_thread_t *t, sp_omp_kind_t kind, const void *cp);

#endif
