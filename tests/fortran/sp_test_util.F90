!> Assertions and the MPI frame of the Fortran tests. Each failed check
!> prints what was expected and what was found; `test_end` fails the
!> program on every rank if any rank had a failure.
module sp_test_util
#ifdef SP_FORTRAN_WITH_MPI
  use mpi_f08, only: MPI_Allreduce, MPI_Barrier, MPI_COMM_WORLD, MPI_Comm_rank, &
    MPI_Comm_size, MPI_Finalize, MPI_Init, MPI_INTEGER, MPI_SUM
#endif
  use, intrinsic :: iso_fortran_env, only: error_unit, int64
  use scope_profiler, only: sp_misuse_count, SP_MISUSE_STOP_WITHOUT_START, &
    SP_MISUSE_UNBALANCED
  implicit none
  private

  public :: test_begin, test_end, test_rank, test_size, test_barrier, test_fresh_file
  public :: check, check_equal, check_no_misuse

  !> Checks that two values are equal, printing both when they are not.
  interface check_equal
    module procedure check_equal_int, check_equal_int64, check_equal_str
  end interface check_equal

  integer :: failures = 0 !! failed checks on this rank
  integer :: rank = 0, nranks = 1

contains

  !> Initialises MPI (when the library has it) and learns rank and size.
  subroutine test_begin()
#ifdef SP_FORTRAN_WITH_MPI
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
#endif
  end subroutine test_begin

  !> Rank of this process in MPI_COMM_WORLD (0 without MPI).
  integer function test_rank()
    test_rank = rank
  end function test_rank

  !> Number of processes (1 without MPI).
  integer function test_size()
    test_size = nranks
  end function test_size

  !> Waits for all ranks.
  subroutine test_barrier()
#ifdef SP_FORTRAN_WITH_MPI
    call MPI_Barrier(MPI_COMM_WORLD)
#endif
  end subroutine test_barrier

  !> Sums the failures of all ranks, finalises MPI and fails if any.
  subroutine test_end()
    integer :: total
    total = failures
#ifdef SP_FORTRAN_WITH_MPI
    call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Finalize()
#endif
    if (total > 0) then
      if (rank == 0) write (error_unit, "(a,i0,a)") "FAILED: ", total, " check(s)"
      error stop 1
    end if
    if (rank == 0) print "(a)", "all checks passed"
  end subroutine test_end

  !> Removes a file left by an earlier run (rank 0), so that a test cannot
  !> pass on a stale file, and waits until it is gone.
  subroutine test_fresh_file(path)
    character(len=*), intent(in) :: path
    integer :: u, ios
    if (rank == 0) then
      open (newunit=u, file=path, status="old", iostat=ios)
      if (ios == 0) close (u, status="delete")
    end if
    call test_barrier()
  end subroutine test_fresh_file

  !> Checks that no kind of misuse was counted in the current or last session.
  subroutine check_no_misuse()
    integer :: kind
    character(len=40) :: what
    do kind = SP_MISUSE_STOP_WITHOUT_START, SP_MISUSE_UNBALANCED
      write (what, "(a,i0,a)") "sp_misuse_count(", kind, ")"
      call check_equal(sp_misuse_count(kind), 0_int64, trim(what))
    end do
  end subroutine check_no_misuse

  !> Records a failure unless cond holds.
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (cond) return
    failures = failures + 1
    write (error_unit, "(a,i0,2a)") "FAIL [rank ", rank, "] ", what
  end subroutine check

  subroutine check_equal_int(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got == want) return
    failures = failures + 1
    write (error_unit, "(a,i0,3a,i0,a,i0)") "FAIL [rank ", rank, "] ", what, ": got ", got, &
      ", want ", want
  end subroutine check_equal_int

  subroutine check_equal_int64(got, want, what)
    integer(int64), intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got == want) return
    failures = failures + 1
    write (error_unit, "(a,i0,3a,i0,a,i0)") "FAIL [rank ", rank, "] ", what, ": got ", got, &
      ", want ", want
  end subroutine check_equal_int64

  subroutine check_equal_str(got, want, what)
    character(len=*), intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got == want) return
    failures = failures + 1
    write (error_unit, "(a,i0,7a)") "FAIL [rank ", rank, "] ", what, ': got "', got, &
      '", want "', want, '"'
  end subroutine check_equal_str

end module sp_test_util
