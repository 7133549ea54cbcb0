/* clock_offset.h - measuring this rank's clock against rank 0's. */
#ifndef SP_CLOCK_OFFSET_H
#define SP_CLOCK_OFFSET_H

#include <mpi.h>
#include <stdint.h>

#include "sp_internal.h"

/* Ping-pong between rank 0 and every other rank of comm (a communicator of
 * the library's own), best of several round trips, for at most timeout_s
 * seconds (a rank that never comes is given up). Every rank of comm must
 * call it, with the same measurement number: the count of earlier ones on
 * comm (their tags differ, clock_offset.c). Fills *out (rank 0: offset 0,
 * error 0); returns 0, or SP_ETIMEDOUT / SP_EMPI with out->valid 0 when
 * no exchange completed. */
SP_HIDDEN int sp__clock_offset_measure(MPI_Comm comm, unsigned measurement, int64_t timeout_s,
                                       sp_clock_offset_t *out);

#endif
