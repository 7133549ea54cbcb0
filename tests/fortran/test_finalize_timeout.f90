!> Rank 0 sits in an MPI_Barrier while the others call sp_finalize (they
!> hung there forever). With the communicator given to sp_setup (the
!> library's own duplicate carries the bounded wait; Fortran's MPI_Init does
!> not pass through the library) and SCOPE_PROFILER_FINALIZE_TIMEOUT=2 set
!> by the test, every rank gets SP_ETIMEDOUT in `stat`: ranks 1-3 first,
!> then rank 0, once they released it from its barrier.
program test_finalize_timeout
  use mpi_f08
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "finalize_timeout.h5"
  integer :: st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(MPI_COMM_WORLD, file_path=path, stat=st)
  call check_equal(st, SP_OK, "sp_setup with MPI_COMM_WORLD")
  call sp_start("before")
  call sp_stop("before")
  if (test_rank() == 0) then
    call MPI_Barrier(MPI_COMM_WORLD)
    call sp_finalize(stat=st)
  else
    call sp_finalize(stat=st)
    call MPI_Barrier(MPI_COMM_WORLD)
  end if
  call check_equal(st, SP_ETIMEDOUT, "sp_finalize while rank 0 is elsewhere: stat")
  call test_end()
end program test_finalize_timeout
