!> sp_region before sp_setup fails with SP_ENOTSETUP (scope_profiler.h),
!> in the result, in stat and in errmsg.
program test_not_setup
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=80) :: msg
  integer :: h, st

  call test_begin()
  h = sp_region("too early", stat=st, errmsg=msg)
  call check_equal(st, SP_ENOTSETUP, "sp_region before sp_setup: stat")
  call check_equal(h, SP_ENOTSETUP, "sp_region before sp_setup: result")
  call check_equal(trim(msg), sp_strerror(SP_ENOTSETUP), "sp_region before sp_setup: errmsg")
  call test_end()
end program test_not_setup
