!> Trace windows from Fortran: the time loop of test_trace_window.c's case
!> window_both on every rank (10,000 steps of "step" holding two "work"
!> calls, traced at steps 100 to 110; "long" open across the pause, "span"
!> started while paused), in mode both. fortran.trace_window.h5 reads the
!> files back (tests/core/check_trace_window.py window_both).
program test_trace_window
  use scope_profiler
  use sp_test_util
  implicit none
  integer :: h_step, h_work, h_long, h_span, s, w, st

  call test_begin()
  call test_fresh_file("f_window.h5")
  call sp_setup(file_path="f_window.h5", aggregate=.true., buffer_limit=1000, stat=st)
  call check_equal(st, SP_OK, "sp_setup stat")
  h_step = sp_region("step")
  h_work = sp_region("work")
  h_long = sp_region("long")
  h_span = sp_region("span")
  call sp_trace_pause(stat=st)
  call check_equal(st, SP_OK, "sp_trace_pause stat")
  do s = 0, 9999
    if (s == 100) call sp_trace_resume()
    if (s == 111) call sp_trace_pause()
    if (s == 95) call sp_start(h_span)
    if (s == 105) call sp_start(h_long)
    call sp_start(h_step)
    do w = 1, 2
      call sp_start(h_work)
      call sp_stop(h_work)
    end do
    call sp_stop(h_step)
    if (s == 102) call sp_stop(h_span)
    if (s == 120) call sp_stop(h_long)
  end do
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  call sp_trace_resume(stat=st)
  call check_equal(st, SP_ENOTSETUP, "sp_trace_resume after sp_finalize")
  call test_end()
end program test_trace_window
