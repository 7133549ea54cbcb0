/* ompt_events.h - the OMPT callbacks (ompt_events.c). */
#ifndef SP_OMPT_EVENTS_H
#define SP_OMPT_EVENTS_H

#include "ompt_room.h"

/* Registers the callbacks through set_callback for level (an SP_OPENMP_*):
 * parallel regions, worksharing and synchronization always, explicit
 * tasks and mutex waits when the level asks for them. */
SP_HIDDEN void sp__omp_callbacks_register(ompt_set_callback_t set_callback, int level);

#endif
