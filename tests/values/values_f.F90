! values_f.F90 FILE: the Fortran binding's generic sp_call_set (default and
! int64 integers, default and real64 reals, character), with the same
! oracle lines as test_values.c (FILE.oracle.0) for check_values.py.
program values_f
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use scope_profiler
  implicit none
  character(len=4096) :: path
  integer :: i, st, u, h
  real :: r32
  call get_command_argument(1, path)
  open (newunit=u, file=trim(path)//".oracle.0", status="replace", action="write")
  call sp_setup(file_path=trim(path), stat=st)
  if (st /= 0) error stop 3
  call sp_call_set("nothing", 1, stat=st) ! no call open: SP_EINVAL, the program goes on
  if (st /= SP_EINVAL) error stop 4
  h = sp_region("fstep")
  do i = 0, 24
    call sp_start(h)
    r32 = 0.25 * i
    call sp_call_set("n32", i)
    call sp_call_set("n64  ", int(i, int64) * 10000000000_int64)
    call sp_call_set("r32", r32)
    call sp_call_set("r64", 1.0_real64 / (i + 1))
    call sp_call_set("name", "step  ", stat=st)
    if (st /= 0) error stop 5
    write (u, "(a,i0,a,i0)") "0"//achar(9)//"0"//achar(9)//"fstep"//achar(9), i, &
      achar(9)//"n32"//achar(9)//"i"//achar(9), i
    write (u, "(a,i0,a,i0)") "0"//achar(9)//"0"//achar(9)//"fstep"//achar(9), i, &
      achar(9)//"n64"//achar(9)//"i"//achar(9), int(i, int64) * 10000000000_int64
    write (u, "(a,i0,a,es26.17e3)") "0"//achar(9)//"0"//achar(9)//"fstep"//achar(9), i, &
      achar(9)//"r32"//achar(9)//"d"//achar(9), real(r32, real64)
    write (u, "(a,i0,a,es26.17e3)") "0"//achar(9)//"0"//achar(9)//"fstep"//achar(9), i, &
      achar(9)//"r64"//achar(9)//"d"//achar(9), 1.0_real64 / (i + 1)
    write (u, "(a,i0,a)") "0"//achar(9)//"0"//achar(9)//"fstep"//achar(9), i, &
      achar(9)//"name"//achar(9)//"s"//achar(9)//"step"
    call sp_stop(h)
  end do
  close (u)
  call sp_finalize(stat=st)
  print "(a,i0)", "finalize ", st
  if (st /= 0) error stop 6
end program values_f
