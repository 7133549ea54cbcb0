!> Profile mode from Fortran: sp_setup(aggregate=.true.), sp_region_stats,
!> sp_report mid-run, sp_reset, then sp_finalize. The two files are read
!> back by tests/profile/check_counts.py (fortran.profile_mode.h5).
program test_profile_mode
  use scope_profiler
  use sp_test_util
  implicit none
  integer :: h_step, h_compute, i, j, st
  type(sp_region_stats_t) :: s

  call test_begin()
  call test_fresh_file("f_profile.h5")
  call sp_setup(file_path="f_profile.h5", time_trace=.false., aggregate=.true., stat=st)
  call check_equal(st, SP_OK, "sp_setup stat")
  h_step = sp_region("step", file="f_step.f90", line=7) ! its source reaches the files (issue 52)
  h_compute = sp_region("compute")
  do i = 1, 6
    call sp_start(h_step)
    do j = 1, 3
      call sp_start(h_compute)
      call sp_stop(h_compute)
    end do
    call sp_stop(h_step)
    if (i == 2) then
      call sp_region_stats(h_compute, s, stat=st)
      call check_equal(st, SP_OK, "sp_region_stats stat")
      call check(s%calls == 6, "6 calls of compute after 2 steps")
      call check(s%min_ns <= s%max_ns .and. s%total_ns >= s%max_ns, "min <= max <= total")
      call sp_report("f_profile_mid.h5", stat=st)
      call check_equal(st, SP_OK, "sp_report stat")
      call sp_reset(stat=st)
      call check_equal(st, SP_OK, "sp_reset stat")
    end if
  end do
  call sp_region_stats(h_step, s, stat=st)
  call check(s%calls == 4, "4 steps since sp_reset")
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call sp_report("f_after.h5", stat=st)
  call check_equal(st, SP_ENOTSETUP, "sp_report after sp_finalize")
  call test_end()
end program test_profile_mode
