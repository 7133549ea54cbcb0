!> Handles may be made before sp_setup (scope_profiler.h): the name is kept
!> for the session that follows, the same name gives the same handle after
!> setup, and calls recorded with the early handle land in the file.
program test_region_before_setup
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "region_before_setup.h5"
  integer :: h, i, st

  call test_begin()
  call test_fresh_file(path)
  h = sp_region("early", stat=st)
  call check_equal(st, SP_OK, "sp_region before sp_setup: stat")
  call check(h >= 0, "sp_region before sp_setup: a handle")
  call sp_setup(file_path=path)
  call check_equal(sp_region("early"), h, "the same handle after sp_setup")
  do i = 1, 3
    call sp_start(h)
    call sp_stop("early")
  end do
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call check_no_misuse()
  call test_end()
end program test_region_before_setup
