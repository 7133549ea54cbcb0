!> omp_fortran.f90 - gfortran -fopenmp code on LLVM's libomp through
!> LD_PRELOAD (issue 48): "outer" around 3 parallel regions of THREADS
!> threads (the first argument), each a loop with a reduction, an explicit
!> barrier and a single. sp_setup(openmp=SP_OPENMP_ON) asks for the OpenMP
!> regions (the runtime starts after sp_setup here). check_openmp.py
!> --case fortran reads the file.
program omp_fortran
  use omp_lib
  use scope_profiler
  implicit none
  integer, parameter :: rounds = 3
  integer :: st, i, r, threads, singles
  character(len=16) :: arg
  real(8) :: s

  call get_command_argument(1, arg)
  read (arg, *) threads
  call sp_setup(openmp=SP_OPENMP_ON, stat=st)
  if (st /= SP_OK) error stop "sp_setup failed"
  s = 0
  singles = 0
  call sp_start("outer")
  do r = 1, rounds
    !$omp parallel num_threads(threads) reduction(+:s)
    !$omp do
    do i = 1, 1000
      s = s + i
    end do
    !$omp end do
    !$omp barrier
    !$omp single
    singles = singles + 1
    !$omp end single
    !$omp end parallel
  end do
  call sp_stop("outer")
  if (s /= rounds * 500500d0 .or. singles /= rounds) error stop "wrong sum or singles"
  call sp_finalize(stat=st)
  if (st /= SP_OK) error stop "sp_finalize failed"
end program omp_fortran
