! sp_c_api.f90 - sp_setup(NULL) and sp_finalize() for the Fortran tests,
! bound directly so the tests need no Fortran module of ours.
module sp_c_api
  use iso_c_binding, only: c_int, c_ptr, c_null_ptr
  implicit none
  private
  public :: setup, finalize
  interface
    ! int sp_setup(const sp_config *cfg);
    integer(c_int) function c_sp_setup(cfg) bind(C, name="sp_setup")
      import :: c_int, c_ptr
      type(c_ptr), value :: cfg
    end function c_sp_setup
    ! int sp_finalize(void);
    integer(c_int) function c_sp_finalize() bind(C, name="sp_finalize")
      import :: c_int
    end function c_sp_finalize
  end interface
contains
  subroutine setup()
    if (c_sp_setup(c_null_ptr) /= 0) error stop "sp_setup failed"
  end subroutine setup

  subroutine finalize()
    if (c_sp_finalize() /= 0) error stop "sp_finalize failed"
  end subroutine finalize
end module sp_c_api
