!> sp_setup(sample_ms=...) from Fortran reaches sp_config.sample_ms (the
!> bind(C) mirror has the field): 5 ms samples in fortran.h5 (check_samples.py
!> --case child), and a negative period is refused with SP_EINVAL.
program test_samples_f
  use scope_profiler
  implicit none
  integer :: st, i
  integer(8) :: c0, c1, rate
  real(8) :: x

  call sp_setup(sample_ms=-1, file_path="fortran.h5", stat=st)
  if (st /= SP_EINVAL) error stop "sample_ms=-1 not refused"
  call sp_setup(sample_ms=5, file_path="fortran.h5", stat=st)
  if (st /= SP_OK) error stop "sp_setup(sample_ms=5) failed"
  call sp_start("work")
  call system_clock(c0, rate)
  x = 0
  do
    do i = 1, 100000
      x = x + sqrt(real(i, 8))
    end do
    call system_clock(c1)
    if (real(c1 - c0, 8) / real(rate, 8) > 0.2d0) exit
  end do
  call sp_stop("work")
  print *, "sum", x
  call sp_finalize(stat=st)
  if (st /= SP_OK) error stop "sp_finalize failed"
end program test_samples_f
