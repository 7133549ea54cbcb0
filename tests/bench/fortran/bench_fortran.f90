!> Overhead of the Fortran paths of scope-profiler against the C ones,
!> measured in the same run (these VMs are noisy: compare within a run).
!>
!>   bench_fortran [pairs]     (default 100,000 start/stop pairs per case)
!>
!> Each repetition starts a fresh session (sp_setup discards the previous
!> one) and runs every case once, C and Fortran interleaved, on the same
!> region; each figure is the best of 31 short repetitions (short, so that
!> the best ones fall between the bursts of the neighbours on a shared VM).
!> Default configuration: the flushes to the spill file every 100,000
!> events are included.
!>
!> Second part, profile mode (issue 33): a pair by handle from Fortran
!> (call sp_start(h), and a block with type(sp_scope)) and from C, in a
!> trace session and in a profile-mode session (aggregate = .true.,
!> time_trace = .false.), one of each per repetition, against the floor of
!> bench_overhead (two rdtsc and two stores, loop in C) measured next to
!> each case; best of 31. Target: profile mode <= floor + 10 ns a pair.
program bench_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use scope_profiler
  implicit none
  interface
    subroutine sp_bench_c_handle(h, n) bind(C, name="sp_bench_c_handle")
      import :: c_int, c_int64_t
      integer(c_int), value, intent(in) :: h
      integer(c_int64_t), value, intent(in) :: n
    end subroutine sp_bench_c_handle
    subroutine sp_bench_c_handle_call(h, n) bind(C, name="sp_bench_c_handle_call")
      import :: c_int, c_int64_t
      integer(c_int), value, intent(in) :: h
      integer(c_int64_t), value, intent(in) :: n
    end subroutine sp_bench_c_handle_call
    subroutine sp_bench_c_name(n) bind(C, name="sp_bench_c_name")
      import :: c_int64_t
      integer(c_int64_t), value, intent(in) :: n
    end subroutine sp_bench_c_name
    subroutine sp_bench_c_floor(n) bind(C, name="sp_bench_c_floor")
      import :: c_int64_t
      integer(c_int64_t), value, intent(in) :: n
    end subroutine sp_bench_c_floor
  end interface

  integer, parameter :: reps = 31
  character(len=*), parameter :: path = "/tmp/sp_bench_fortran.h5"
  ! Cases; the first is the reference of the "- C handle" column.
  integer, parameter :: c_handle = 1, c_call = 2, f_handle = 3, f_name = 4, &
    f_scope_handle = 5, f_scope_name = 6, c_name = 7, ncases = 7, &
    off_c_handle = 8, off_f_handle = 9, off_f_name = 10, nall = 10
  character(len=44), parameter :: labels(nall) = [character(len=44) :: &
    "C handle: sp_start(h) macro, loop in C", &
    "C handle: (sp_start)(h) call, loop in C", &
    "Fortran handle: call sp_start(h)", &
    'Fortran name: call sp_start("compute")', &
    "Fortran block: type(sp_scope), s%start(h)", &
    'Fortran block: s%start("compute")', &
    'C name: sp_start_name("compute")', &
    "off: C handle macro", &
    "off: Fortran handle", &
    'off: Fortran name']
  real(real64) :: best(nall), warm
  integer(int64) :: pairs
  integer :: r, j, k, h
  character(len=32) :: arg

  pairs = 100000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) pairs
  end if

  best = huge(1.0_real64)
  do r = 1, reps
    call sp_setup(file_path=path)
    h = sp_region("compute")
    ! Warm-up: every case once, unmeasured, so that the region's buffer has
    ! grown to its full size and the flush writer has caught up before the
    ! first measured case (each case then finds the flush of the one before).
    do k = 1, ncases
      warm = run_case(k, h)
    end do
    ! Each repetition starts with another case, so that no case always
    ! comes first after the warm-up's flushes.
    do j = 0, ncases - 1
      k = mod(r + j, ncases) + 1
      best(k) = min(best(k), run_case(k, h))
    end do
    call sp_setup(profiling_activated=.false., file_path=path)
    h = sp_region("compute")
    do k = ncases + 1, nall
      best(k) = min(best(k), run_case(k, h))
    end do
  end do
  ! An empty session, so that finalize writes a small file.
  call sp_setup(file_path=path)
  call sp_finalize()
  call delete_file(path)

  print "(a,i0,a,i0,a)", "scope-profiler Fortran overhead benchmark: ", pairs, " pairs x ", &
    reps, " reps, best rep"
  print "(a44,2a12)", "case", "ns/pair", "- C handle"
  do k = 1, nall
    if (k == off_c_handle) print "(a)", "profiling_activated = .false.:"
    if (k < off_c_handle) then
      print "(a44,2f12.2)", labels(k), best(k), best(k) - best(c_handle)
    else
      print "(a44,2f12.2)", labels(k), best(k), best(k) - best(off_c_handle)
    end if
  end do
  print "(a,f6.2,a,a)", "target Fortran handle <= C handle + 3 ns/pair: ", &
    best(f_handle) - best(c_handle), " ns/pair, ", &
    trim(merge("met    ", "not met", best(f_handle) <= best(c_handle) + 3))
  print "(a,f6.2,a,f6.2,a)", "Fortran block by name - block by handle: ", &
    best(f_scope_name) - best(f_scope_handle), " ns/pair; - Fortran handle: ", &
    best(f_scope_name) - best(f_handle), " ns/pair (target <= 3)"
  call profile_part()

contains

  !> Nanoseconds per start/stop pair of one case, one repetition.
  function run_case(k, h) result(ns)
    integer, intent(in) :: k, h
    real(real64) :: ns
    integer(int64) :: i, t0

    t0 = sp_clock_now_ns()
    select case (k)
    case (c_handle, off_c_handle)
      call sp_bench_c_handle(h, pairs)
    case (c_call)
      call sp_bench_c_handle_call(h, pairs)
    case (c_name)
      call sp_bench_c_name(pairs)
    case (f_handle, off_f_handle)
      do i = 1, pairs
        call sp_start(h)
        call sp_stop(h)
      end do
    case (f_name, off_f_name)
      do i = 1, pairs
        call sp_start("compute")
        call sp_stop("compute")
      end do
    case (f_scope_handle)
      do i = 1, pairs
        block
          type(sp_scope) :: s
          call s%start(h)
        end block
      end do
    case (f_scope_name)
      do i = 1, pairs
        block
          type(sp_scope) :: s
          call s%start("compute")
        end block
      end do
    end select
    ns = real(sp_clock_now_ns() - t0, real64) / real(pairs, real64)
  end function run_case

  !> Profile mode against trace mode and the floor, in this run.
  subroutine profile_part()
    integer, parameter :: pcases = 3
    character(len=36), parameter :: plabels(pcases) = [character(len=36) :: &
      "C handle: sp_start(h) macro", "Fortran handle: call sp_start(h)", &
      "Fortran block: s%start(h)"]
    integer, parameter :: kind_of(pcases) = [c_handle, f_handle, f_scope_handle]
    character(len=*), parameter :: mode_label(2) = [character(len=24) :: "trace", "profile (aggregate)"]
    real(real64) :: pbest(pcases, 2), pfloor(pcases, 2)
    integer :: r, m, k, h

    pbest = huge(1.0_real64)
    pfloor = huge(1.0_real64)
    do r = 1, reps
      do m = 1, 2
        if (m == 1) then
          call sp_setup(file_path=path)
        else
          call sp_setup(file_path=path, time_trace=.false., aggregate=.true.)
        end if
        h = sp_region("compute")
        do k = 1, pcases
          warm = run_case(kind_of(k), h)
        end do
        do k = 1, pcases
          pfloor(k, m) = min(pfloor(k, m), floor_ns())
          pbest(k, m) = min(pbest(k, m), run_case(kind_of(k), h))
        end do
      end do
    end do
    call sp_setup(file_path=path)
    call sp_finalize()
    call delete_file(path)

    print "(a)", ""
    print "(a,i0,a,i0,a)", "profile mode from Fortran: ", pairs, " pairs x ", reps, &
      " reps, best rep; floor: 2 rdtsc + 2 stores (bench_overhead), measured next to each case"
    print "(a24,a36,4a10)", "mode", "case", "ns/pair", "floor", "x floor", "- floor"
    do m = 1, 2
      do k = 1, pcases
        print "(a24,a36,4f10.2)", mode_label(m), plabels(k), pbest(k, m), pfloor(k, m), &
          pbest(k, m) / pfloor(k, m), pbest(k, m) - pfloor(k, m)
      end do
    end do
    print "(a,f6.2,a,f6.2,a,a)", "target profile mode <= floor + 10 ns/pair: Fortran handle ", &
      pbest(2, 2) - pfloor(2, 2), ", Fortran block ", pbest(3, 2) - pfloor(3, 2), " ns/pair, ", &
      trim(merge("met    ", "not met", max(pbest(2, 2) - pfloor(2, 2), &
                                           pbest(3, 2) - pfloor(3, 2)) <= 10))
    print "(a,f6.2,a,f6.2,a)", "profile mode - trace mode: Fortran handle ", &
      pbest(2, 2) - pbest(2, 1), " ns/pair; - C handle in profile mode: ", &
      pbest(2, 2) - pbest(1, 2), " ns/pair"
  end subroutine profile_part

  !> Nanoseconds per pair of the floor, one repetition.
  function floor_ns() result(ns)
    real(real64) :: ns
    integer(int64) :: t0
    t0 = sp_clock_now_ns()
    call sp_bench_c_floor(pairs)
    ns = real(sp_clock_now_ns() - t0, real64) / real(pairs, real64)
  end function floor_ns

  subroutine delete_file(name)
    character(len=*), intent(in) :: name
    integer :: u, ios
    open (newunit=u, file=name, status="old", iostat=ios)
    if (ios == 0) close (u, status="delete")
  end subroutine delete_file

end program bench_fortran
