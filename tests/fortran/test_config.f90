!> The keyword arguments of sp_setup reach the C configuration:
!> profiling_activated=.false. records nothing and writes no file;
!> time_trace=.false. writes call counts without stamps to file_path.
program test_config
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: off_path = "config_off.h5", path = "config_count_only.h5"
  integer :: i, j, st
  logical :: exists

  call test_begin()
  call test_fresh_file(off_path)
  call test_fresh_file(path)

  call sp_setup(profiling_activated=.false., file_path=off_path, stat=st)
  call check_equal(st, SP_OK, "sp_setup(profiling_activated=.false.): stat")
  call check(.not. sp_is_active(), "profiling_activated=.false. leaves the profiler inactive")
  call sp_start("ignored")
  call sp_stop("ignored")
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize of an inactive session: stat")
  call test_barrier()
  inquire (file=off_path, exist=exists)
  call check(.not. exists, "an inactive session writes no file")

  call sp_setup(time_trace=.false., flush_to_disk=.false., buffer_limit=7, use_likwid=.false., &
                file_path=path, stat=st)
  call check_equal(st, SP_OK, "sp_setup(time_trace=.false., ...): stat")
  call check(sp_is_active(), "count-only session is active")
  do i = 1, 20
    call sp_start("counted")
    do j = 1, 2
      call sp_start("inner")
      call sp_stop("inner")
    end do
    call sp_stop("counted")
  end do
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize of the count-only session: stat")
  call check_no_misuse()
  call test_end()
end program test_config
