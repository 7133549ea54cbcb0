/* mpi_comms.h - the table of this rank's communicator ids (mpi_comms.c):
 * the MPI calls' comm values index it (docs/automatic-regions.md "Tags and
 * communicators"). Never installed. */
#ifndef SP_MPI_COMMS_H
#define SP_MPI_COMMS_H

#include "sp_internal.h"

/* The table of this rank's communicators (mpi_comm_ids.c gives the ids,
 * the same on all members): id's size and the world ranks of its members
 * in its rank order (for an intercommunicator, of its remote group, which
 * its peers index). 0, or -1 when id is already in the table or out of
 * memory. Thread-safe; kept for the process's life (ids are not reused). */
SP_HIDDEN int sp__mpi_comm_set(int32_t id, int32_t size, const int32_t *world_ranks);
/* The table as rank<N>/mpi has it: *n = the largest id + 1; sizes[id]
 * (malloc'd; 0 for an id this rank is not a member of); members (malloc'd),
 * the ids' world ranks one after the other. 0 or SP_ENOMEM; both NULL when
 * *n is 0. Thread-safe. */
SP_HIDDEN int sp__mpi_comms(int32_t *n, int32_t **sizes, int64_t *nmembers, int32_t **members);

/* Appends the table's entries from *done on to a spill file, one
 * SP_SPILL_MPI_COMMS record each through rec, advancing *done past each
 * written (0 for a new file). 0 or rec's error. Thread-safe. */
SP_HIDDEN int sp__mpi_comms_spill(int (*rec)(uint32_t type, const void *p, size_t n),
                                  int32_t *done);

#endif
