!> Counts and nesting: the file must hold exactly the calls the program
!> made, on each rank, inside the regions that enclosed them.
program test_counts_nesting
  use scope_profiler
  use sp_test_util
  implicit none
  integer, parameter :: nsteps = 5, ncompute = 3
  character(len=*), parameter :: path = "counts_nesting.h5"
  integer :: h_step, h_compute, i, j, st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(file_path=path, stat=st)
  call check_equal(st, SP_OK, "sp_setup stat")
  call check(sp_is_active(), "sp_is_active after sp_setup")

  h_step = sp_region("step")
  h_compute = sp_region("compute", stat=st)
  call check_equal(st, SP_OK, "sp_region stat")
  call check(h_step >= 0 .and. h_compute >= 0, "handles are >= 0")
  call check(h_step /= h_compute, "two names give two handles")
  call check_equal(sp_region("step"), h_step, "the same name gives the same handle")

  do i = 1, nsteps
    call sp_start(h_step)
    do j = 1, ncompute
      call sp_start(h_compute)
      call sp_stop(h_compute)
    end do
    call sp_start("halo exchange")
    call sp_stop("halo exchange")
    call sp_stop(h_step)
  end do

  ! A count that differs per rank shows each rank's calls land in its own group.
  do i = 1, test_rank() + 1
    call sp_start("rank/dependent")
    call sp_stop("rank/dependent")
  end do

  call recurse(3)

  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call check(.not. sp_is_active(), "sp_is_active after sp_finalize")
  call check_no_misuse()
  call test_end()

contains

  !> A region nested in itself, depth calls deep.
  recursive subroutine recurse(depth)
    integer, intent(in) :: depth
    call sp_start("recursive")
    if (depth > 1) call recurse(depth - 1)
    call sp_stop("recursive")
  end subroutine recurse

end program test_counts_nesting
