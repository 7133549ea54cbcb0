! The ranges of an NVTX-annotated Fortran program: "fortran outer" 3 times,
! "fortran inner" 4 times inside each. No call of scope-profiler's own.
program consumer_nvtx
  use scope_profiler_nvtx, only: nvtxRangePush, nvtxRangePop
  implicit none
  integer :: i, j
  do i = 1, 3
    call nvtxRangePush("fortran outer")
    do j = 1, 4
      call nvtxRangePush("fortran inner")
      call nvtxRangePop()
    end do
    call nvtxRangePop()
  end do
end program consumer_nvtx
