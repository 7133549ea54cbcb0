!> C and Fortran in one program record into one session and one file:
!> C regions nest inside Fortran ones, and a call opened in Fortran can be
!> closed in C.
program test_mixed
  use, intrinsic :: iso_c_binding, only: c_int
  use scope_profiler
  use sp_test_util
  implicit none
  interface
    function sp_test_c_region() bind(C, name="sp_test_c_region") result(h)
      import :: c_int
      integer(c_int) :: h
    end function sp_test_c_region
    subroutine sp_test_c_work(n) bind(C, name="sp_test_c_work")
      import :: c_int
      integer(c_int), value, intent(in) :: n
    end subroutine sp_test_c_work
    subroutine sp_test_c_stop_shared() bind(C, name="sp_test_c_stop_shared")
    end subroutine sp_test_c_stop_shared
  end interface
  character(len=*), parameter :: path = "mixed.h5"
  integer :: h_shared, i, st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(file_path=path)
  h_shared = sp_region("shared")
  call check_equal(sp_test_c_region(), h_shared, "C and Fortran get one handle for one name")

  do i = 1, 4
    call sp_start("fortran outer")
    call sp_test_c_work(3)
    call sp_stop("fortran outer")
  end do
  call sp_start(h_shared)
  call sp_test_c_stop_shared()

  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call check_no_misuse()
  call test_end()
end program test_mixed
