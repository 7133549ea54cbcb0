! io_fortran.f90 - Fortran I/O (OPEN/WRITE/READ/CLOSE, which libgfortran
! makes of POSIX calls) and MPI-IO through `use mpi_f08` (a split
! collective among its calls), for
! SCOPE_PROFILER_PROFILE_IO=1 (issue 49). check_io.py (mode fortran) holds
! the profile to what this program wrote to DIR/expect_r<rank>.tsv after
! sp_finalize: the MPI-IO calls exactly, as io_calls.c's; for the Fortran
! file its bytes written and read and its opens (a line "FILE").
program io_fortran
  use mpi_f08
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
  integer, parameter :: n = 5000
  integer :: rank, nranks, u, ios, cnt, hf, hm
  integer :: a(n), b(n)
  character(len=512) :: dir, path, shared, out
  type(MPI_File) :: fh
  type(MPI_Status) :: st
  integer(MPI_OFFSET_KIND) :: off
  integer :: wrote_at, read_at

  call get_command_argument(1, dir)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (sp_setup(c_null_ptr) /= 0) error stop "sp_setup"
  hf = sp_region("fortran" // c_null_char)
  hm = sp_region("mpiio" // c_null_char)
  a = rank

  write (path, '(a, "/fort_r", i0, ".dat")') trim(dir), rank
  call sp_start(hf)
  open (newunit=u, file=trim(path), access="stream", form="unformatted", status="replace")
  write (u) a
  close (u)
  open (newunit=u, file=trim(path), access="stream", form="unformatted", status="old")
  read (u, iostat=ios) b
  close (u)
  call sp_stop(hf)
  if (ios /= 0 .or. any(b /= a)) error stop "Fortran I/O"

  shared = trim(dir) // "/fshared.dat"
  call sp_start(hm)
  call MPI_File_open(MPI_COMM_WORLD, trim(shared), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh)
  off = int(rank, MPI_OFFSET_KIND) * 400
  call MPI_File_write_at(fh, off, a, 100, MPI_INTEGER, st)
  call MPI_Get_count(st, MPI_BYTE, wrote_at)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, b, 50, MPI_INTEGER, st)
  call MPI_Get_count(st, MPI_BYTE, read_at)
  ! a split collective: the begin the bytes asked for, the end 0
  off = 4000 + int(rank, MPI_OFFSET_KIND) * 400
  call MPI_File_write_at_all_begin(fh, off, a, 100, MPI_INTEGER)
  call MPI_File_write_at_all_end(fh, a, st)
  call MPI_File_close(fh)
  call sp_stop(hm)

  if (sp_finalize() /= 0) error stop "sp_finalize"
  call MPI_Finalize()
  write (out, '(a, "/expect_r", i0, ".tsv")') trim(dir), rank
  open (newunit=u, file=trim(out), status="replace", action="write")
  cnt = 4 * n
  write (u, '(4a, i0, a, i0)') "FILE", achar(9), trim(path), achar(9), cnt, &
    achar(9), cnt
  call line("MPI_File_open", 0)
  call line("MPI_File_write_at", wrote_at)
  call line("MPI_File_sync", 0)
  call line("MPI_File_read_at_all", read_at)
  call line("MPI_File_write_at_all_begin", 400)
  call line("MPI_File_write_at_all_end", 0)
  call line("MPI_File_close", 0)
  close (u)
contains
  subroutine line(op, nbytes)
    character(len=*), intent(in) :: op
    integer, intent(in) :: nbytes
    ! region, call, file, one call, its bytes, the bytes of it not failed
    write (u, '(8a, i0, a, i0)') "mpiio", achar(9), op, achar(9), trim(shared), achar(9), &
      "1", achar(9), nbytes, achar(9), nbytes
  end subroutine line
end program io_fortran
