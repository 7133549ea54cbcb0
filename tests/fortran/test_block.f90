!> The block API: an sp_scope declared in a block is stopped when control
!> leaves the block by end block, exit, cycle, exit of an outer loop, or
!> return. The whole program runs inside the region "program": a scope left
!> open would make its final sp_stop a counted mismatch.
program test_block
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "block.h5"
  integer :: h_program, h_body, i, j, st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(file_path=path)
  h_program = sp_region("program")
  h_body = sp_region("loop body")
  call sp_start(h_program)

  block
    type(sp_scope) :: s
    call s%start("plain")
  end block

  ! Calls of "loop body": i = 1..5 (cycle on 2 and 4, exit on 5); "inner": i = 1, 3.
  do i = 1, 6
    block
      type(sp_scope) :: s
      call s%start(h_body)
      if (mod(i, 2) == 0) cycle
      if (i == 5) exit
      block
        type(sp_scope) :: inner
        call inner%start("inner")
      end block
    end block
  end do
  call sp_start("after loop")
  call sp_stop("after loop")

  ! Leaving two blocks at once: one "outer scope", two "inner scope".
  outer: do i = 1, 3
    block
      type(sp_scope) :: a
      call a%start("outer scope")
      do j = 1, 3
        block
          type(sp_scope) :: b
          call b%start("inner scope")
          if (j == 2) exit outer
        end block
      end do
    end block
  end do outer
  call sp_start("after outer")
  call sp_stop("after outer")

  call leave_by_return()
  call sp_start("after return")
  call sp_stop("after return")

  ! An explicit stop; the end of the block must not stop a second time.
  block
    type(sp_scope) :: s
    call s%start("stopped early")
    call s%stop()
    call sp_start("between")
    call sp_stop("between")
  end block

  ! A second start in the same scope closes the first call.
  block
    type(sp_scope) :: s
    call s%start("first")
    call s%start("second")
  end block

  call sp_stop(h_program)
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call check_no_misuse()
  call test_end()

contains

  subroutine leave_by_return()
    block
      type(sp_scope) :: s
      call s%start("returning")
      if (test_size() > 0) return
      call sp_start("unreachable")
    end block
  end subroutine leave_by_return

end program test_block
