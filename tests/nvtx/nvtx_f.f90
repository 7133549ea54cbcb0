! nvtx_f.f90 - a Fortran program annotated with NVTX through the module
! scope_profiler_nvtx (the raw C interfaces and the string wrappers), on
! OpenMP threads, run with NVTX_INJECTION64_PATH=libscope_profiler_nvtx.so:
!   f_outer (1) > f_step (4) > f_inner (4); mark::f_check (1) in f_outer
!   f_worker (1 on each of 2 threads)
!   f_async (1): a start/end range
program nvtx_f
  use, intrinsic :: iso_c_binding, only: c_null_char, c_int64_t
  use scope_profiler_nvtx
  implicit none
  integer :: i
  integer(c_int64_t) :: id

  call nvtxRangePushA("f_outer"//c_null_char)
  do i = 1, 4
    call nvtxRangePush("f_step")
    call nvtxRangePush("f_inner   ")
    call nvtxRangePop()
    call nvtxRangePop()
  end do
  call nvtxMark("f_check")
  call nvtxRangePop()

  !$omp parallel num_threads(2)
  call nvtxRangePush("f_worker")
  !$omp barrier
  call nvtxRangePop()
  !$omp end parallel

  id = nvtxRangeStart("f_async")
  call nvtxRangeEnd(id)
end program nvtx_f
