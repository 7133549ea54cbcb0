!> sp_setup(layout=SP_LAYOUT_COLUMNAR) reaches the C configuration: the
!> file is in the columnar layout (tests/columnar/check_columnar.py reads it).
program test_columnar
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "columnar_layout.h5"
  integer :: i, j, st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(file_path=path, layout=SP_LAYOUT_COLUMNAR, stat=st)
  call check_equal(st, SP_OK, "sp_setup(layout=SP_LAYOUT_COLUMNAR): stat")
  do i = 1, 3
    call sp_start("outer")
    do j = 1, 2
      call sp_start("inner")
      call sp_stop("inner")
    end do
    call sp_stop("outer")
  end do
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize: stat")
  call check_no_misuse()
  call test_end()
end program test_columnar
