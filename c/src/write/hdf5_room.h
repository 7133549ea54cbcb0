/* hdf5_room.h - memory left for HDF5 before finalize enters it (see
 * hdf5_room.c). */
#ifndef SP_HDF5_ROOM_H
#define SP_HDF5_ROOM_H

#include "plan.h"

/* 0 when the address space HDF5 takes to create the layout of plans
 * (NULL: to start and open a file) can still be mapped; else SP_ENOMEM, said with the
 * limit. errno is preserved. */
SP_HIDDEN int sp__hdf5_room(const sp_rank_plan_t *plans, int nplans);

#endif
