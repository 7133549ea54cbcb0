!> NVTX's C API for Fortran, as GPU codes declare it by hand (MFC, neko):
!> `bind(C)` interfaces to the symbols of libscope_profiler_nvtx_api, which
!> is NVTX3's own implementation compiled with NVTX_EXPORT_API (NVTX3 is
!> header-only; CUDA no longer ships libnvToolsExt). Like any NVTX program,
!> the first call loads the tool `NVTX_INJECTION64_PATH` names: Nsight's,
!> or libscope_profiler_nvtx to record the ranges as scope-profiler regions
!> (docs/gpu.md). The raw interfaces take C strings (`"name"//c_null_char`);
!> the wrappers `nvtxRangePush` and `nvtxMark` take Fortran strings.
module scope_profiler_nvtx
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int64_t, c_null_char
  implicit none
  private

  public :: nvtxRangePushA, nvtxRangePop, nvtxMarkA, nvtxRangeStartA, nvtxRangeEnd
  public :: nvtxRangePush, nvtxMark, nvtxRangeStart

  !> Longest name the wrappers pass (longer ones are cut).
  integer, parameter :: SP_NVTX_NAME_MAX = 4096

  interface
    !> `int nvtxRangePushA(const char *message)`; the nesting level it returns is
    !> dropped (called as a subroutine, as GPU codes do).
    subroutine nvtxRangePushA(message) bind(C, name="nvtxRangePushA")
      import :: c_char
      character(kind=c_char), intent(in) :: message(*)
    end subroutine nvtxRangePushA

    !> `int nvtxRangePop(void)`.
    subroutine nvtxRangePop() bind(C, name="nvtxRangePop")
    end subroutine nvtxRangePop

    !> `void nvtxMarkA(const char *message)`.
    subroutine nvtxMarkA(message) bind(C, name="nvtxMarkA")
      import :: c_char
      character(kind=c_char), intent(in) :: message(*)
    end subroutine nvtxMarkA

    !> `nvtxRangeId_t nvtxRangeStartA(const char *message)`: a range that may end
    !> on another thread (`nvtxRangeEnd`).
    function nvtxRangeStartA(message) bind(C, name="nvtxRangeStartA") result(id)
      import :: c_char, c_int64_t
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int64_t) :: id
    end function nvtxRangeStartA

    !> `void nvtxRangeEnd(nvtxRangeId_t id)`.
    subroutine nvtxRangeEnd(id) bind(C, name="nvtxRangeEnd")
      import :: c_int64_t
      integer(c_int64_t), value, intent(in) :: id
    end subroutine nvtxRangeEnd
  end interface

contains

  !> The name, trailing blanks trimmed, as a C string.
  pure function c_name(name) result(s)
    character(len=*), intent(in) :: name
    character(kind=c_char, len=:), allocatable :: s
    s = name(1:min(len_trim(name), SP_NVTX_NAME_MAX))//c_null_char
  end function c_name

  !> `nvtxRangePushA` with a Fortran string.
  subroutine nvtxRangePush(name)
    character(len=*), intent(in) :: name !! the range's name
    call nvtxRangePushA(c_name(name))
  end subroutine nvtxRangePush

  !> `nvtxMarkA` with a Fortran string.
  subroutine nvtxMark(name)
    character(len=*), intent(in) :: name !! the mark's name
    call nvtxMarkA(c_name(name))
  end subroutine nvtxMark

  !> `nvtxRangeStartA` with a Fortran string.
  function nvtxRangeStart(name) result(id)
    character(len=*), intent(in) :: name !! the range's name
    integer(c_int64_t) :: id !! for nvtxRangeEnd
    id = nvtxRangeStartA(c_name(name))
  end function nvtxRangeStart

end module scope_profiler_nvtx
