! link_results.F90 - the same MPI program with and without the library
! linked (issue 43 item 1): check_link_results.py compares what it prints.
! Only calls the library wraps (and MPI_Init/MPI_Finalize, which it wraps
! too), so that the linker's --as-needed drops Open MPI's Fortran library
! from the linked program, as for a user's program: the rank comes from
! MPI_Scan, the size from MPI_Allreduce, and no MPI_STATUSES_IGNORE (a
! common block of that library, which keeps it linked). SP_F08: `use mpi_f08` (else `use
! mpi`); SP_LIB: sp_setup/sp_finalize around the calls.
program link_results
#ifdef SP_F08
  use mpi_f08
#else
  use mpi
#endif
#ifdef SP_LIB
  use sp_c_api, only: setup, finalize
#endif
  implicit none
  integer, parameter :: nring = 100, nnb = 50
  integer :: ierr, one, rank, size, left, right, i, sq, sqsum
  integer :: sbuf(nring), rbuf(nring), nbs(nnb), nbr(nnb), mine(2), tot(2)
#ifdef SP_F08
  type(MPI_Request) :: rq(2)
  type(MPI_Status) :: st, sts(2)
#else
  integer :: rq(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
#endif

  call MPI_Init(ierr)
#ifdef SP_LIB
  call setup()
#endif
  one = 1
  call MPI_Scan(one, rank, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  rank = rank - 1
  call MPI_Allreduce(one, size, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  sq = (rank + 1)**2
  call MPI_Allreduce(sq, sqsum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  ! A ring of blocking messages (even ranks send first), then one of
  ! nonblocking ones the other way round.
  sbuf = [(rank * 1000 + i, i = 1, nring)]
  rbuf = -1
  if (mod(rank, 2) == 0) then
    call MPI_Send(sbuf, nring, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, nring, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
  else
    call MPI_Recv(rbuf, nring, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(sbuf, nring, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  nbs = [(rank * 7 + i, i = 1, nnb)]
  nbr = -1
  call MPI_Irecv(nbr, nnb, MPI_INTEGER, right, 2, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_Isend(nbs, nnb, MPI_INTEGER, left, 2, MPI_COMM_WORLD, rq(2), ierr)
  call MPI_Waitall(2, rq, sts, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  mine = [sum(rbuf), sum(nbr)]
  tot = -1
  call MPI_Allreduce(mine, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,5(1x,i0))', 'results', size, sqsum, tot(1), tot(2), rbuf(nring)
#ifdef SP_LIB
  call finalize()
#endif
  call MPI_Finalize(ierr)
end program link_results
