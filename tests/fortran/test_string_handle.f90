!> String and handle calls reach the same region: any mix of start and stop
!> by name and by handle, names with trailing blanks, substrings and
!> allocatable strings all record into one group.
program test_string_handle
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "string_handle.h5"
  character(len=32) :: padded
  character(len=:), allocatable :: deferred
  character(len=40) :: longer
  integer :: h, st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(file_path=path)
  h = sp_region("shared region")
  padded = "shared region"
  deferred = "shared region"
  longer = "shared region|not part of the name"
  call check_equal(sp_region("shared region   "), h, "trailing blanks are ignored")
  call check_equal(sp_region(padded), h, "padded variable gives the same handle")
  call check_equal(sp_region(longer(1:13)), h, "substring gives the same handle")

  call sp_start("shared region")
  call sp_stop(h)
  call sp_start(h)
  call sp_stop("shared region")
  call sp_start(padded)
  call sp_stop(padded)
  call sp_start(longer(1:13))
  call sp_stop(h)
  call sp_start(deferred)
  call sp_stop(deferred)
  block
    type(sp_scope) :: s
    call s%start(padded)
  end block
  block
    type(sp_scope) :: s
    call s%start(h)
  end block

  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call check_no_misuse()
  if (allocated(deferred)) deallocate (deferred)
  call test_end()
end program test_string_handle
