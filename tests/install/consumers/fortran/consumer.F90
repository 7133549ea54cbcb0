!> A Fortran program outside the project that uses the installed module
!> scope_profiler (found with find_package or pkg-config) and writes a
!> small profile for check_profile.py.
!> Usage: sp_consumer_fortran <output.h5>
!> Regions: "fortran outer" 3 calls (handle), "fortran inner" 12 calls (name).
program sp_consumer_fortran
  use scope_profiler, only: sp_setup, sp_finalize, sp_region, sp_start, sp_stop, &
                            sp_version_string, SP_OK
#ifdef SP_CONSUMER_MPI
  use mpi_f08, only: MPI_Init, MPI_Finalize, MPI_COMM_WORLD
#endif
  implicit none
  character(len=4096) :: path
  character(len=256) :: msg
  integer :: stat, outer, i, j

  if (command_argument_count() /= 1) then
    write (*, '(a)') "usage: sp_consumer_fortran <output.h5>"
    error stop 2
  end if
  call get_command_argument(1, path)
#ifdef SP_CONSUMER_MPI
  call MPI_Init()
  call sp_setup(comm=MPI_COMM_WORLD, file_path=trim(path), stat=stat, errmsg=msg)
#else
  call sp_setup(file_path=trim(path), stat=stat, errmsg=msg)
#endif
  if (stat /= SP_OK) then
    write (*, '(a)') "consumer: sp_setup: "//trim(msg)
    error stop 1
  end if
  outer = sp_region("fortran outer")
  do i = 1, 3
    call sp_start(outer)
    do j = 1, 4
      call sp_start("fortran inner")
      call sp_stop("fortran inner")
    end do
    call sp_stop(outer)
  end do
  call sp_finalize(stat=stat, errmsg=msg)
  if (stat /= SP_OK) then
    write (*, '(a)') "consumer: sp_finalize: "//trim(msg)
    error stop 1
  end if
#ifdef SP_CONSUMER_MPI
  call MPI_Finalize()
#endif
  write (*, '(a)') "consumer: wrote "//trim(path)//" with scope-profiler "//sp_version_string()
end program sp_consumer_fortran
