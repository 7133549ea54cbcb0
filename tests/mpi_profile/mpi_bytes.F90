! mpi_bytes.F90 - the messages of mpi_bytes.c through `use mpi`, or through
! `use mpi_f08` when built with SP_F08; check_mpi_bytes.py checks both
! against the same table. Argument: a file for MPI-IO.
#ifdef SP_F08
#define HANDLE(t) type(t)
#else
#define HANDLE(t) integer
#endif
program mpi_bytes
#ifdef SP_F08
  use mpi_f08
#else
  use mpi
#endif
  use sp_c_api, only: setup, finalize
  implicit none
  integer :: rank, n, ierr
  character(len=4096) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call get_command_argument(1, path)
  if (n /= 4 .or. len_trim(path) == 0) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call setup()
  call p2p()
  call collectives()
  call one_sided()
  call file_io()
  call finalize()
  call MPI_Finalize(ierr)

contains

  subroutine p2p()
    integer :: buf(64), right, left, i
    double precision :: d(12)
    HANDLE(MPI_Request) :: rq(2)
    HANDLE(MPI_Datatype) :: vec, trip
#ifdef SP_F08
    type(MPI_Status) :: st
#else
    integer :: st(MPI_STATUS_SIZE)
#endif
    buf = 0
    d = 0
    right = mod(rank + 1, n)
    left = mod(rank + n - 1, n)
    if (rank == 0) then
      do i = 1, n - 1
        call MPI_Recv(buf, 64, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
      end do
    else
      call MPI_Send(buf, rank + 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
    end if
    call MPI_Irecv(buf(33), 32, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_Isend(buf, rank + 2, MPI_INTEGER, right, 2, MPI_COMM_WORLD, rq(2), ierr)
    call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
    call MPI_Type_vector(2, 2, 5, MPI_INTEGER, vec, ierr)
    call MPI_Type_commit(vec, ierr)
    call MPI_Sendrecv(buf, 2, vec, right, 3, buf(33), 2, vec, left, 3, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call MPI_Type_contiguous(3, MPI_DOUBLE_PRECISION, trip, ierr)
    call MPI_Type_commit(trip, ierr)
    call MPI_Bcast(d, 2, trip, 0, MPI_COMM_WORLD, ierr)
    call MPI_Type_free(vec, ierr)
    call MPI_Type_free(trip, ierr)
    if (rank == 1) call MPI_Send(buf, 5, MPI_INTEGER, 3, 4, MPI_COMM_WORLD, ierr)
    if (rank == 3) then
      call MPI_Probe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, st, ierr)
#ifdef SP_F08
      call MPI_Recv(buf, 5, MPI_INTEGER, st%MPI_SOURCE, 4, MPI_COMM_WORLD, st, ierr)
#else
      call MPI_Recv(buf, 5, MPI_INTEGER, st(MPI_SOURCE), 4, MPI_COMM_WORLD, st, ierr)
#endif
    end if
  end subroutine p2p

  subroutine collectives()
    integer :: s(64), r(64), counts(4), displs(4), ones(4), rdispls(4), i
    double precision :: x(16), y(16)
    HANDLE(MPI_Request) :: rq
    s = 0
    r = 0
    x = 0
    y = 0
    do i = 1, 4
      counts(i) = i
      displs(i) = (i - 1) * i / 2
      ones(i) = rank + 1
      rdispls(i) = (i - 1) * (rank + 1)
    end do
    call MPI_Gatherv(s, rank + 1, MPI_INTEGER, r, counts, displs, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
    call MPI_Scatterv(s, counts, displs, MPI_INTEGER, r, rank + 1, MPI_INTEGER, 0, &
                      MPI_COMM_WORLD, ierr)
    call MPI_Allgatherv(s, rank + 1, MPI_INTEGER, r, counts, displs, MPI_INTEGER, &
                        MPI_COMM_WORLD, ierr)
    call MPI_Alltoallv(s, counts, displs, MPI_INTEGER, r, ones, rdispls, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    call MPI_Reduce_scatter(s, r, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Reduce_scatter_block(x, y, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(s, r, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(MPI_IN_PLACE, r, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Reduce(x, y, 4, MPI_DOUBLE_PRECISION, MPI_MAX, 2, MPI_COMM_WORLD, ierr)
    call MPI_Scan(s, r, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Exscan(s, r, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Gather(s, 2, MPI_INTEGER, r, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    call MPI_Iallreduce(x, y, 5, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, rq, ierr)
    call MPI_Wait(rq, MPI_STATUS_IGNORE, ierr)
    call MPI_Ibarrier(MPI_COMM_WORLD, rq, ierr)
    call MPI_Wait(rq, MPI_STATUS_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine collectives

  subroutine one_sided()
    integer :: mem(16), buf(4), right, left
    HANDLE(MPI_Win) :: win
    integer(kind=MPI_ADDRESS_KIND) :: size, disp
    mem = 0
    buf = [1, 2, 3, 4]
    size = 64
    call MPI_Win_create(mem, size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    right = mod(rank + 1, n)
    left = mod(rank + n - 1, n)
    call MPI_Win_fence(0, win, ierr)
    disp = 0
    call MPI_Put(buf, 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win, ierr)
    disp = 4
    call MPI_Get(buf(3), 2, MPI_INTEGER2, left, disp, 2, MPI_INTEGER2, win, ierr)
    disp = 8 + rank
    call MPI_Accumulate(buf, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, win, ierr)
    disp = 12
    call MPI_Put(buf, 3, MPI_INTEGER, left, disp, 3, MPI_INTEGER, win, ierr)
    call MPI_Win_unlock(left, win, ierr)
    call MPI_Win_free(win, ierr)
  end subroutine one_sided

  subroutine file_io()
    integer :: buf(10)
    double precision :: d(3)
    HANDLE(MPI_File) :: fh
    integer(kind=MPI_OFFSET_KIND) :: off
    buf = 0
    d = 0
    call MPI_File_open(MPI_COMM_WORLD, trim(path), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                       MPI_INFO_NULL, fh, ierr)
    off = rank * 40
    call MPI_File_write_at(fh, off, buf, 10, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    off = 160 + rank * 24
    call MPI_File_write_at_all(fh, off, d, 3, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
    off = rank * 40
    call MPI_File_read_at(fh, off, buf, 10, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_File_read_at_all(fh, off, buf, 5, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_File_close(fh, ierr)
  end subroutine file_io
end program mpi_bytes
