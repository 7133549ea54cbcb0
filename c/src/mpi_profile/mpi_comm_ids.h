/* mpi_comm_ids.h - this rank's id of each communicator its recorded MPI calls name
 * (mpi_comm_ids.c). */
#ifndef SP_MPI_COMM_IDS_H
#define SP_MPI_COMM_IDS_H

#include <mpi.h>

#include "sp_internal.h"

/* This rank's id of comm (mpi_extra.h), given on first sight; -1 for
 * MPI_COMM_NULL or when not known. */
SP_HIDDEN int32_t sp__mpi_comm_id(MPI_Comm comm);

#endif
