! heat.f90 - a Fortran program compiled with -finstrument-functions and
! linked with scope-profiler::instrument; no region is placed by hand.
! Calls: heat::init 1, heat::step 7, heat::norm 2 (module procedures).
module heat
  implicit none
  private
  public :: init, step, norm
contains
  subroutine init(u)
    real, intent(out) :: u(:)
    u = 1.0
  end subroutine init

  subroutine step(u)
    real, intent(inout) :: u(:)
    u(2:size(u) - 1) = 0.5 * (u(1:size(u) - 2) + u(3:size(u)))
  end subroutine step

  real function norm(u)
    real, intent(in) :: u(:)
    norm = sqrt(sum(u * u))
  end function norm
end module heat

program heat_main
  use heat, only: init, step, norm
  implicit none
  real :: u(100), n
  integer :: i
  call init(u)
  do i = 1, 7
    call step(u)
  end do
  n = norm(u)
  u(1) = 2.0
  n = n + norm(u)
  print *, n
end program heat_main
