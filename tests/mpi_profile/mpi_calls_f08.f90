! mpi_calls_f08.f90 - the calls of mpi_calls.c through `use mpi_f08`.
program mpi_calls_f08
  use mpi_f08
  use sp_c_api, only: setup, finalize
  implicit none
  integer :: rank, size, right, left, x, y, i
  integer :: all(64), sums(64)
  type(MPI_Status) :: st
  type(MPI_Request) :: rq(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call setup()
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  x = rank
  do i = 1, 2
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  do i = 1, 3
    call MPI_Bcast(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  end do
  call MPI_Reduce(x, y, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  do i = 1, 4
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  end do
  call MPI_Allgather(x, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD)
  do i = 1, size
    sums(i) = i
  end do
  call MPI_Alltoall(sums, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD)
  do i = 1, 2
    call MPI_Sendrecv(x, 1, MPI_INTEGER, right, 1, y, 1, MPI_INTEGER, left, 1, &
                      MPI_COMM_WORLD, st)
  end do
  call MPI_Irecv(y, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, rq(1))
  call MPI_Isend(x, 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, rq(2))
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE)
  call MPI_Irecv(y, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, rq(1))
  call MPI_Isend(x, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, rq(2))
  call MPI_Wait(rq(1), st)
  call MPI_Wait(rq(2), st)
  if (rank == 0) call MPI_Send(x, 1, MPI_INTEGER, size - 1, 4, MPI_COMM_WORLD)
  if (rank == size - 1) call MPI_Recv(y, 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, st)
  call MPI_Barrier(MPI_COMM_WORLD)
  call finalize()
  call MPI_Finalize()
end program mpi_calls_f08
