! mpi_tags.F90 - mpi_tags.c's calls through `use mpi`, or through `use mpi_f08`
! when built with SP_F08, so that check_mpi_tags.py checks the tags and
! communicator ids the Fortran wrappers record (and the Fortran
! MPI_Comm_split and MPI_Comm_free) against the same table (issue 50 item 1).
#ifdef SP_F08
#define HANDLE(t) type(t)
#else
#define HANDLE(t) integer
#endif
program mpi_tags
#ifdef SP_F08
  use mpi_f08
#else
  use mpi
#endif
  use sp_c_api, only: setup, finalize
  implicit none
  integer, parameter :: rounds = 3
  integer :: rank, n, ierr, k, t, rtag, left, right, ar, br, sum, bad
  integer :: sbuf(1), rbuf(1)
  HANDLE(MPI_Comm) :: a, b
  HANDLE(MPI_Request) :: rq

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  if (n /= 4) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call setup()
  bad = 0
  sbuf(1) = rank
  left = mod(rank + n - 1, n)
  right = mod(rank + 1, n)
  do k = 0, rounds - 1
    rtag = 10 + k
    if (k == 1) rtag = MPI_ANY_TAG
    if (mod(rank, 2) == 0) call MPI_Send(sbuf, 1, MPI_INTEGER, right, 10 + k, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 1, MPI_INTEGER, left, rtag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (mod(rank, 2) == 1) call MPI_Send(sbuf, 1, MPI_INTEGER, right, 10 + k, MPI_COMM_WORLD, ierr)
    if (rbuf(1) /= left) bad = bad + 1
  end do
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, a, ierr)
  call MPI_Comm_rank(a, ar, ierr)
  do t = 7, 9
    rtag = t
    if (t == 8) rtag = MPI_ANY_TAG
    if (ar == 0) call MPI_Send(sbuf, 1, MPI_INTEGER, 1, t, a, ierr)
    if (ar == 1) call MPI_Recv(rbuf, 1, MPI_INTEGER, 0, rtag, a, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Barrier(a, ierr)
  call MPI_Comm_free(a, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, b, ierr)
  call MPI_Comm_rank(b, br, ierr)
  if (br == 0) call MPI_Isend(sbuf, 1, MPI_INTEGER, 1, 42, b, rq, ierr)
  if (br == 1) call MPI_Irecv(rbuf, 1, MPI_INTEGER, 0, 42, b, rq, ierr)
  call MPI_Wait(rq, MPI_STATUS_IGNORE, ierr)
  call MPI_Allreduce(sbuf, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (sum /= n * (n - 1) / 2) bad = bad + 1
  call MPI_Comm_free(b, ierr)
  if (bad /= 0) error stop "mpi_tags: wrong data received"
  call finalize()
  call MPI_Finalize(ierr)
end program mpi_tags
