! mpi_persist.F90 - mpi_persist.c's persistent requests through `use mpi`
! (or `use mpi_f08` with SP_F08), for check_mpi_persist.py.
program mpi_persist
#ifdef SP_F08
  use mpi_f08
#else
  use mpi
#endif
  use sp_c_api, only: setup, finalize
  implicit none
  integer, parameter :: rounds = 5
  integer :: rank, n, left, i, k, bad, ierr
  ! asynchronous: MPI reads and writes them between the calls that name them
  integer, asynchronous :: out(64), in(64)
#ifdef SP_F08
  type(MPI_Request) :: rq(2)
  type(MPI_Status) :: st, sts(2)
#else
  integer :: rq(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
#endif

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call setup()
  out = [(rank * 100 + i - 1, i = 1, 64)]
  left = mod(rank + n - 1, n)
  bad = 0
  call MPI_Recv_init(in, 64, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, rq(1), ierr)
  call MPI_Send_init(out, 3 * (rank + 1), MPI_INTEGER, mod(rank + 1, n), 5, MPI_COMM_WORLD, &
                     rq(2), ierr)
  do k = 1, rounds
    call MPI_Startall(2, rq, ierr)
    call MPI_Waitall(2, rq, sts, ierr)
    if (in(1) /= left * 100) bad = bad + 1
  end do
  do k = 1, rounds
    call MPI_Start(rq(1), ierr)
    call MPI_Start(rq(2), ierr)
    call MPI_Wait(rq(1), st, ierr)
    call MPI_Wait(rq(2), st, ierr)
    if (in(1) /= left * 100) bad = bad + 1
  end do
  call MPI_Request_free(rq(2), ierr)
  call MPI_Ssend_init(out, 2, MPI_INTEGER, mod(rank + 1, n), 5, MPI_COMM_WORLD, rq(2), ierr)
  call MPI_Startall(2, rq, ierr)
  call MPI_Waitall(2, rq, sts, ierr)
  call MPI_Request_free(rq(1), ierr)
  call MPI_Request_free(rq(2), ierr)
  if (bad /= 0) error stop "mpi_persist: wrong data received"
  call finalize()
  call MPI_Finalize(ierr)
end program mpi_persist
