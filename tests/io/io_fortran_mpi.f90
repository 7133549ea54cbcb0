! io_fortran_mpi.f90 - MPI-IO through `use mpi` (the mpif.h-style entry
! points mpi_file_*_; io_fortran.f90 covers mpi_f08) for
! SCOPE_PROFILER_PROFILE_IO=1 (issue 49): open, write_at, read_at, a seek,
! sync, collective writes and reads, split collectives (begin: the bytes asked
! for, end: 0), nonblocking collectives, set_view, get_size, close, on every
! rank, in the region "mpiio".
! check_io.py (mode fmpi) holds the profile to what this program wrote to
! DIR/expect_r<rank>.tsv after sp_finalize: each call's region, name, file
! and bytes, and the file's record (opens, reads, writes, bytes).
program io_fortran_mpi
  use mpi
  use iso_c_binding, only: c_int, c_char, c_null_char, c_null_ptr, c_ptr
  implicit none
  interface
    integer(c_int) function sp_setup(cfg) bind(C, name="sp_setup")
      import :: c_int, c_ptr
      type(c_ptr), value :: cfg
    end function sp_setup
    integer(c_int) function sp_finalize() bind(C, name="sp_finalize")
      import :: c_int
    end function sp_finalize
    integer(c_int) function sp_region(name) bind(C, name="sp_region")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function sp_region
    subroutine sp_start(h) bind(C, name="sp_start")
      import :: c_int
      integer(c_int), value :: h
    end subroutine sp_start
    subroutine sp_stop(h) bind(C, name="sp_stop")
      import :: c_int
      integer(c_int), value :: h
    end subroutine sp_stop
  end interface
  integer, parameter :: maxl = 32
  integer :: rank, nranks, ierr, fh, hm, u, i, nl
  integer :: st(MPI_STATUS_SIZE)
  integer :: a(1000), b(1000), cnt, req
  integer(MPI_OFFSET_KIND) :: off, fsize
  character(len=512) :: dir, path, out
  character(len=40) :: ops(maxl)
  integer :: nbytes(maxl)

  call get_command_argument(1, dir)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (sp_setup(c_null_ptr) /= 0) error stop "sp_setup"
  hm = sp_region("mpiio" // c_null_char)
  a = rank + 1
  nl = 0
  path = trim(dir) // "/fmpi.dat"

  call sp_start(hm)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  call add("MPI_File_open", ok0(ierr))
  off = int(rank, MPI_OFFSET_KIND) * 400
  call MPI_File_write_at(fh, off, a, 100, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_write_at", cnt)
  call MPI_File_read_at(fh, off, b, 60, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_read_at", cnt)
  if (any(b(1:60) /= rank + 1)) error stop "read_at"
  off = 4000 + int(rank, MPI_OFFSET_KIND) * 400
  call MPI_File_write_at_all(fh, off, a, 100, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_write_at_all", cnt)
  call MPI_File_read_at_all(fh, off, b, 100, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_read_at_all", cnt)
  ! the individual pointer: this rank's part from 8000 on
  call MPI_File_seek(fh, 8000 + int(rank, MPI_OFFSET_KIND) * 800, MPI_SEEK_SET, ierr)
  call add("MPI_File_seek", ok0(ierr))
  call MPI_File_write_all(fh, a, 50, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_write_all", cnt)
  call MPI_File_write_all_begin(fh, a, 70, MPI_INTEGER, ierr)
  call add("MPI_File_write_all_begin", merge(280, -1, ierr == MPI_SUCCESS))
  call MPI_File_write_all_end(fh, a, st, ierr)
  call add("MPI_File_write_all_end", ok0(ierr))
  ! sync, barrier, sync: the writes seen by every rank's reads (MPI's consistency rule)
  call MPI_File_sync(fh, ierr)
  call add("MPI_File_sync", ok0(ierr))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call add("MPI_File_sync", ok0(ierr))
  call MPI_File_seek(fh, 8000 + int(rank, MPI_OFFSET_KIND) * 800, MPI_SEEK_SET, ierr)
  call add("MPI_File_seek", ok0(ierr))
  call MPI_File_read_all(fh, b, 50, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_read_all", cnt)
  call MPI_File_read_all_begin(fh, b, 70, MPI_INTEGER, ierr)
  call add("MPI_File_read_all_begin", merge(280, -1, ierr == MPI_SUCCESS))
  call MPI_File_read_all_end(fh, b, st, ierr)
  call add("MPI_File_read_all_end", ok0(ierr))
  if (any(b(1:70) /= rank + 1)) error stop "read_all_begin/end"
  off = 20000 + int(rank, MPI_OFFSET_KIND) * 400
  call MPI_File_write_at_all_begin(fh, off, a, 90, MPI_INTEGER, ierr)
  call add("MPI_File_write_at_all_begin", merge(360, -1, ierr == MPI_SUCCESS))
  call MPI_File_write_at_all_end(fh, a, st, ierr)
  call add("MPI_File_write_at_all_end", ok0(ierr))
  ! sync, barrier, sync: the writes seen by every rank's reads (MPI's consistency rule)
  call MPI_File_sync(fh, ierr)
  call add("MPI_File_sync", ok0(ierr))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call add("MPI_File_sync", ok0(ierr))
  call MPI_File_read_at_all_begin(fh, off, b, 40, MPI_INTEGER, ierr)
  call add("MPI_File_read_at_all_begin", merge(160, -1, ierr == MPI_SUCCESS))
  call MPI_File_read_at_all_end(fh, b, MPI_STATUS_IGNORE, ierr)
  call add("MPI_File_read_at_all_end", ok0(ierr))
  if (any(b(1:40) /= rank + 1)) error stop "read_at_all_begin/end"
  ! Nonblocking collectives: the bytes asked for, at the call.
  off = 12000 + int(rank, MPI_OFFSET_KIND) * 400
  call MPI_File_iwrite_at_all(fh, off, a, 30, MPI_INTEGER, req, ierr)
  call add("MPI_File_iwrite_at_all", merge(120, -1, ierr == MPI_SUCCESS))
  call MPI_Wait(req, st, ierr)
  call MPI_File_sync(fh, ierr)
  call add("MPI_File_sync", ok0(ierr))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call add("MPI_File_sync", ok0(ierr))
  b = 0
  call MPI_File_iread_at_all(fh, off, b, 30, MPI_INTEGER, req, ierr)
  call add("MPI_File_iread_at_all", merge(120, -1, ierr == MPI_SUCCESS))
  call MPI_Wait(req, st, ierr)
  if (any(b(1:30) /= rank + 1)) error stop "iread_at_all"
  ! A view of integers from byte 24000: offsets count integers from there.
  call MPI_File_set_view(fh, 24000_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, "native", &
                         MPI_INFO_NULL, ierr)
  call add("MPI_File_set_view", ok0(ierr))
  call MPI_File_write_at(fh, int(rank, MPI_OFFSET_KIND) * 10, a, 10, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_BYTE, cnt, ierr)
  call add("MPI_File_write_at", cnt)
  call MPI_File_get_size(fh, fsize, ierr)
  call add("MPI_File_get_size", ok0(ierr))
  if (fsize < 20000 + 400 * (nranks - 1) + 360) error stop "get_size"
  call MPI_File_close(fh, ierr)
  call add("MPI_File_close", ok0(ierr))
  call sp_stop(hm)

  if (sp_finalize() /= 0) error stop "sp_finalize"
  call MPI_Finalize(ierr)
  write (out, '(a, "/expect_r", i0, ".tsv")') trim(dir), rank
  open (newunit=u, file=trim(out), status="replace", action="write")
  do i = 1, nl
    ! region, call, file, one call, its bytes, the bytes of it not failed
    write (u, '(8a, i0, a, i0)') "mpiio", achar(9), trim(ops(i)), achar(9), trim(path), &
      achar(9), "1", achar(9), nbytes(i), achar(9), max(nbytes(i), 0)
  end do
  close (u)
contains
  integer function ok0(e)
    integer, intent(in) :: e
    ok0 = merge(0, -1, e == MPI_SUCCESS)
  end function ok0
  subroutine add(op, n)
    character(len=*), intent(in) :: op
    integer, intent(in) :: n
    nl = nl + 1
    ops(nl) = op
    nbytes(nl) = n
  end subroutine add
end program io_fortran_mpi
