! meta_fortran.F90 - run metadata of every Fortran kind and regions with a
! source location (sp_region's file/line and SP_REGION_HERE), for
! check_runmeta.py. Writes what it expects into the JSON file it is given.
#include "scope_profiler.h90"
program meta_fortran
  use scope_profiler
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  character(len=4096) :: out, exp_path
  integer :: h, here, st, u, failures, line_here, i

  failures = 0
  call get_command_argument(1, out)
  call get_command_argument(2, exp_path)
  call sp_metadata_set("early", "x", stat=st)
  call expect(st == SP_ENOTSETUP, "before setup")
  call sp_setup(file_path=trim(out), stat=st)
  call expect(st == 0, "setup")

  call sp_metadata_set("f_string", "Größe ✓   ", stat=st)   ! trailing blanks dropped
  call expect(st == 0, "string")
  call sp_metadata_set("f_int", 42, stat=st)
  call expect(st == 0, "default integer")
  call sp_metadata_set("f_int64", -9000000000000000000_int64, stat=st)
  call expect(st == 0, "int64")
  call sp_metadata_set("f_real", 0.5, stat=st)
  call expect(st == 0, "default real")
  call sp_metadata_set("f_real64", 1.0e300_real64, stat=st)
  call expect(st == 0, "real64")
  call sp_metadata_set("work_per_rank   ", 4096, stat=st)       ! trailing blanks of the key
  call expect(st == 0, "key with blanks")
  call sp_metadata_set("a/b", 1, stat=st)
  call expect(st == SP_EINVAL, "slash refused")
  call sp_metadata_set("omp_threads", 1, stat=st)
  call expect(st == SP_EINVAL, "library key refused")
  call sp_metadata_set("", "x", stat=st)
  call expect(st == SP_EINVAL, "blank key refused")

  h = sp_region("f_solve", file="solver.F90", line=77)
  call expect(h >= 0, "region with location")
  line_here = __LINE__ + 1
  here = SP_REGION_HERE("f_here")
  call expect(here >= 0, "SP_REGION_HERE")
  do i = 1, 3
    call sp_start(h)
    call sp_start(here)
    call sp_stop(here)
    call sp_stop(h)
  end do
  call sp_start("f_plain")
  call sp_stop("f_plain")

  open (newunit=u, file=trim(exp_path), status="replace", action="write", encoding="UTF-8")
  write (u, "(a)") '{"values": {"f_string": "Größe ✓", "f_int": 42, ' // &
    '"f_int64": -9000000000000000000, "f_real": 0.5, "f_real64": 1e300, "work_per_rank": 4096},'
  write (u, "(a)") '"absent": ["a/b", "early"],'
  write (u, "(a,a,a,i0,a)") '"sources": [["f_solve", "solver.F90", 77], ["f_here", "', &
    __FILE__, '", ', line_here, ']],'
  write (u, "(a)") '"no_source": ["f_plain"], "end": 1}'
  close (u)
  call sp_finalize(stat=st)
  call expect(st == 0, "finalize")
  if (failures > 0) error stop 1

contains
  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write (*, "(2a)") "FAIL: ", what
      failures = failures + 1
    end if
  end subroutine expect
end program meta_fortran
