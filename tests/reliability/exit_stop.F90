!> exit_stop: records calls of "r" and ends with `stop`, without
!> sp_finalize (test_lifecycle run_merge checks the spill files).
program exit_stop
  use scope_profiler, only: sp_setup, sp_start, sp_stop
  implicit none
  integer :: i

  call sp_setup()
  do i = 1, 25000
    call sp_start("r")
    call sp_stop("r")
  end do
  stop
end program exit_stop
