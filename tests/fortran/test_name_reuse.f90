!> By name through addresses that hold different names in turn: the C
!> library caches the region of each name address, and Fortran passes the
!> same address for a variable assigned again, and often for temporaries
!> (`trim(...)`, concatenations) made at one place in a loop. Every call must
!> reach the region of the name it holds now: by `sp_start`/`sp_stop` and by
!> `s%start` in a block.
program test_name_reuse
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "name_reuse.h5"
  character(len=*), parameter :: names(3) = [character(len=12) :: "alpha", "beta_", "gamma longer"]
  character(len=16) :: buf, inner_name
  integer :: i, st

  call test_begin()
  call test_fresh_file(path)
  call sp_setup(file_path=path)
  do i = 1, 300
    ! One variable, assigned again: the same address every time.
    buf = names(mod(i, 3) + 1)
    call sp_start(buf)
    call sp_stop(buf)
    ! Temporaries made at one place: trim and concatenation.
    call sp_start(trim(names(mod(i, 2) + 1)) // "_tmp")
    call sp_stop(trim(names(mod(i, 2) + 1)) // "_tmp")
    ! A scope by name through a variable, nested in one through a temporary.
    block
      type(sp_scope) :: outer
      call outer%start(trim(names(mod(i + 1, 3) + 1)) // "_scope")
      block
        type(sp_scope) :: inner
        inner_name = trim(names(mod(i, 3) + 1)) // "_in"
        call inner%start(inner_name)
      end block
    end block
  end do
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call check_no_misuse()
  call test_end()
end program test_name_reuse
