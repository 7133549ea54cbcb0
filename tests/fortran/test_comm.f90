!> sp_setup(comm=...) with a communicator that reverses the ranks: the
!> file's rank<N> groups follow the ranks in that communicator, so world
!> rank r must appear as rank<n-1-r>. The argument picks how the
!> communicator is passed: "f08" (type(MPI_Comm)) or "int" (integer handle),
!> or "freed": set by `sp_mpi_set_comm` and freed by the program before
!> `sp_finalize` (which crashed every rank when the library kept the handle).
program test_comm
  use mpi_f08
  use scope_profiler
  use sp_test_util
  implicit none
  type(MPI_Comm) :: reversed
  character(len=8) :: how
  character(len=32) :: name
  character(len=:), allocatable :: path
  integer :: st

  call test_begin()
  call get_command_argument(1, how)
  path = "comm_" // trim(how) // ".h5"
  call test_fresh_file(path)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, test_size() - 1 - test_rank(), reversed)
  select case (how)
  case ("f08")
    call sp_setup(reversed, file_path=path, stat=st)
  case ("int")
    call sp_setup(comm=reversed%MPI_VAL, file_path=path, stat=st)
  case ("freed")
    call sp_setup(file_path=path, stat=st)
    call check_equal(st, SP_OK, "sp_setup before sp_mpi_set_comm")
    call sp_mpi_set_comm(reversed, stat=st)
    call MPI_Comm_free(reversed)
  case default
    st = -999
  end select
  call check_equal(st, SP_OK, "sp_setup with a communicator (" // trim(how) // ")")

  write (name, "(a,i0)") "world rank ", test_rank()
  call sp_start(trim(name))
  call sp_stop(trim(name))

  call sp_finalize(stat=st)
  call check_equal(st, SP_OK, "sp_finalize stat")
  if (how /= "freed") call MPI_Comm_free(reversed)
  call check_no_misuse()
  if (allocated(path)) deallocate (path)
  call test_end()
end program test_comm
