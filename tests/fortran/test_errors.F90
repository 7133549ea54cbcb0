!> Errors: the SP_E* constants equal the C codes, calls that can fail
!> return them in stat with the matching errmsg, and misuse of the hot path
!> is counted without stopping the program.
program test_errors
#ifdef SP_FORTRAN_WITH_MPI
  use mpi_f08, only: MPI_COMM_NULL
#endif
  use, intrinsic :: iso_fortran_env, only: int64
  use scope_profiler
  use sp_test_util
  implicit none
  character(len=*), parameter :: path = "errors.h5"
  character(len=80) :: msg
  integer :: h, st

  call test_begin()
  call test_fresh_file(path)
  call check_constants()

  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize without sp_setup does nothing")

  ! Bad configurations.
  call sp_setup(file_path=path, buffer_limit=0, stat=st, errmsg=msg)
  call check_equal(st, SP_EINVAL, "sp_setup(buffer_limit=0): stat")
  call check_equal(trim(msg), sp_strerror(SP_EINVAL), "sp_setup(buffer_limit=0): errmsg")
  call sp_setup(file_path="no such directory/errors.h5", stat=st)
  call check_equal(st, SP_EPATH, "sp_setup with an unwritable path: stat")
#ifdef SP_FORTRAN_WITH_MPI
  call sp_mpi_set_comm(MPI_COMM_NULL, stat=st)
  call check_equal(st, SP_EINVAL, "sp_mpi_set_comm(MPI_COMM_NULL), type(MPI_Comm)")
  call sp_mpi_set_comm(MPI_COMM_NULL%MPI_VAL, stat=st)
  call check_equal(st, SP_EINVAL, "sp_mpi_set_comm(MPI_COMM_NULL), integer")
  call sp_setup(MPI_COMM_NULL, file_path=path, stat=st)
  call check_equal(st, SP_EINVAL, "sp_setup(comm=MPI_COMM_NULL): stat")
#else
  call sp_setup(comm=0, file_path=path, stat=st, errmsg=msg)
  call check_equal(st, SP_ENOTSUP, "sp_setup(comm=...) without MPI: stat")
  call check_equal(trim(msg), sp_strerror(SP_ENOTSUP), "sp_setup(comm=...) without MPI: errmsg")
#endif

  ! A good setup: stat 0 and a blank errmsg.
  msg = "not overwritten"
  call sp_setup(file_path=path, stat=st, errmsg=msg)
  call check_equal(st, SP_OK, "sp_setup: stat")
  call check_equal(msg, "", "sp_setup: errmsg on success")

  ! Bad names.
  h = sp_region("", stat=st, errmsg=msg)
  call check_equal(st, SP_EINVAL, "sp_region(''): stat")
  call check_equal(h, SP_EINVAL, "sp_region(''): result")
  call check_equal(trim(msg), sp_strerror(SP_EINVAL), "sp_region(''): errmsg")
  h = sp_region("   ", stat=st)
  call check_equal(st, SP_EINVAL, "sp_region of a blank name: stat")
  h = sp_region(repeat("x", SP_NAME_MAX + 1), stat=st)
  call check_equal(st, SP_ENAMETOOLONG, "sp_region of SP_NAME_MAX+1 bytes: stat")
  h = sp_region(repeat("x", SP_NAME_MAX), stat=st)
  call check_equal(st, SP_OK, "sp_region of SP_NAME_MAX bytes: stat")
  call check(h >= 0, "sp_region of SP_NAME_MAX bytes: a handle")

  ! Misuse of the hot path is counted, once per call, and ignored.
  call sp_stop("never started")
  call check_equal(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1_int64, "stop without start")
  call sp_start(123456)
  call check_equal(sp_misuse_count(SP_MISUSE_INVALID_HANDLE), 1_int64, "invalid handle")
  call sp_start("")
  call check_equal(sp_misuse_count(SP_MISUSE_BAD_NAME), 1_int64, "empty name")

  call sp_finalize(stat=st, errmsg=msg)
  call check_equal(st, SP_OK, "sp_finalize: stat")
  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "second sp_finalize does nothing")
  call test_end()

contains

  !> Each Fortran constant has the value of the C code of the same name.
  subroutine check_constants()
    character(len=64) :: ver
    call check_equal(sp_err_name(SP_OK), "SP_OK", "SP_OK")
    call check_equal(sp_err_name(SP_EINVAL), "SP_EINVAL", "SP_EINVAL")
    call check_equal(sp_err_name(SP_ENOMEM), "SP_ENOMEM", "SP_ENOMEM")
    call check_equal(sp_err_name(SP_ENAMETOOLONG), "SP_ENAMETOOLONG", "SP_ENAMETOOLONG")
    call check_equal(sp_err_name(SP_ENOTSETUP), "SP_ENOTSETUP", "SP_ENOTSETUP")
    call check_equal(sp_err_name(SP_EIO), "SP_EIO", "SP_EIO")
    call check_equal(sp_err_name(SP_EHDF5), "SP_EHDF5", "SP_EHDF5")
    call check_equal(sp_err_name(SP_EMPI), "SP_EMPI", "SP_EMPI")
    call check_equal(sp_err_name(SP_EPATH), "SP_EPATH", "SP_EPATH")
    call check_equal(sp_err_name(SP_ESPILL), "SP_ESPILL", "SP_ESPILL")
    call check_equal(sp_err_name(SP_ENOTSUP), "SP_ENOTSUP", "SP_ENOTSUP")
    call check_equal(sp_err_name(SP_ETOOMANY), "SP_ETOOMANY", "SP_ETOOMANY")
    call check_equal(sp_err_name(SP_ELOST), "SP_ELOST", "SP_ELOST")
    call check_equal(sp_err_name(SP_ETIMEDOUT), "SP_ETIMEDOUT", "SP_ETIMEDOUT")
    call check_equal(sp_err_name(SP_EPARTIAL), "SP_EPARTIAL", "SP_EPARTIAL")
    call check_equal(sp_err_name(SP_EBUSY), "SP_EBUSY", "SP_EBUSY")
    call check_equal(sp_strerror(SP_OK), "success", "sp_strerror(SP_OK)")
    call check_equal(sp_strerror(SP_EINVAL), "invalid argument", "sp_strerror(SP_EINVAL)")
    call check(len(sp_version_string()) >= 5, "sp_version_string: " // sp_version_string())
    ! The module's version parameters and the library's string come from the
    ! one project(VERSION).
    write (ver, '(i0,".",i0,".",i0)') SP_VERSION_MAJOR, SP_VERSION_MINOR, SP_VERSION_PATCH
    call check_equal(sp_version_string(), trim(ver), "SP_VERSION_* against sp_version_string")
  end subroutine check_constants

end program test_errors
