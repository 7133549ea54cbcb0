! waits_delays.F90 - waits_delays.c's wait states from Fortran, through
! `use mpi_f08` (built with SP_F08) or `use mpi`, for check_waits.py and
! check_waits_h5.py (issue 50). On 4 ranks, each phase in a region of its
! own, the delayed rank sleeping D (usleep through bind(C)) in a named
! region while the others enter the call after a short settle:
!   phase_ls     rank 1 sends tag 6, then late_send_work, then tag 5 to
!                rank 0, which receives tag 5 first (Late Sender); rank 3
!                MPI_Isend's tag 7 to rank 2, then after late_send_work
!                MPI_Send's tag 7 again, which rank 2 receives second with
!                MPI_ANY_SOURCE and MPI_ANY_TAG (Late Sender);
!   phase_lr     rank 0 MPI_Ssend's to rank 1, which receives after
!                late_recv_work (Late Receiver);
!   phase_bar    MPI_Barrier after rank 2's barrier_work (Wait at Barrier);
!   phase_nxn    MPI_Allreduce on MPI_Comm_split(world, rank % 2): ranks 0
!                and 3 late in allreduce_work (Wait at N x N);
!   phase_bcast  MPI_Bcast root 1 after the root's bcast_work (Late Broadcast);
!   phase_reduce MPI_Reduce root 0, rank 3 late in reduce_work (Early Reduce);
!   phase_tags   on the split communicator, tags out of order: its rank 1
!                (world 2 and 3) sends tag 21, then after tags_work tag 22;
!                its rank 0 (world 0 and 1) receives tag 22 first (Late
!                Sender, the cause named by world rank), then tag 21;
!   phase_sr     MPI_Sendrecv around a ring (two partners), rank 1 late in
!                sendrecv_work (Late Sender at rank 2);
!   phase_shift  MPI_Sendrecv along an open chain (MPI_PROC_NULL at the
!                ends), rank 2 late in shift_work (Late Sender at rank 3).
! Nothing may be left unpaired.
! A barrier in region sync separates the phases. Each rank stamps
! sp_clock_now_ns (the stamps' clock) around its calls and its delay; after
! sp_finalize rank 0 gathers the stamps and writes to argv(1) the waits the
! phases must show, tab-separated as waits_delays.c:
!   state rank path seconds cause_rank cause_region seconds_hi
#ifdef SP_F08
#define HANDLE(t) type(t)
#else
#define HANDLE(t) integer
#endif
program waits_delays_f
#ifdef SP_F08
  use mpi_f08
#else
  use mpi
#endif
  use iso_c_binding, only: c_int, c_int64_t, c_char, c_null_char
  use sp_c_api, only: setup, finalize
  implicit none

  interface
    ! int usleep(useconds_t usec);
    integer(c_int) function c_usleep(us) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function c_usleep
    ! int64_t sp_clock_now_ns(void);
    integer(c_int64_t) function c_now() bind(C, name="sp_clock_now_ns")
      import :: c_int64_t
    end function c_now
    ! void sp_start_name(const char *name);
    subroutine c_start(name) bind(C, name="sp_start_name")
      import :: c_char
      character(kind=c_char), intent(in) :: name(*)
    end subroutine c_start
    ! void sp_stop_name(const char *name);
    subroutine c_stop(name) bind(C, name="sp_stop_name")
      import :: c_char
      character(kind=c_char), intent(in) :: name(*)
    end subroutine c_stop
  end interface

  integer, parameter :: N = 4, SETTLE_US = 20000, D_US = 150000
  integer, parameter :: LS = 1, LR = 2, BAR = 3, NXN = 4, BCAST = 5, REDUCE = 6, TAGS = 7, &
                        SR = 8, SHIFT = 9, LS0 = 10, NPH = 10  ! LS0: phase_ls's first message
  integer(c_int64_t) :: in_(NPH) = 0, out_(NPH) = 0, work_(NPH) = 0
  integer(c_int64_t) :: t_in(NPH, 0:N - 1), t_out(NPH, 0:N - 1), t_work(NPH, 0:N - 1)
  integer :: rank, nranks, ierr
  HANDLE(MPI_Comm) :: half
  character(len=4096) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  if (nranks /= N .or. len_trim(path) == 0) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call warm()
  call setup()
  call phases()
  call finalize()
  call MPI_Gather(in_, NPH, MPI_INTEGER8, t_in, NPH, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gather(out_, NPH, MPI_INTEGER8, t_out, NPH, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gather(work_, NPH, MPI_INTEGER8, t_work, NPH, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call expect(trim(path))
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine start(name)
    character(len=*), intent(in) :: name
    call c_start(name // c_null_char)
  end subroutine start

  subroutine stop_(name)
    character(len=*), intent(in) :: name
    call c_stop(name // c_null_char)
  end subroutine stop_

  subroutine sleep_us(us)
    integer, intent(in) :: us
    integer(c_int) :: rc
    rc = c_usleep(int(us, c_int))
  end subroutine sleep_us

  !> The delay of phase ph: us in region name, its start stamped.
  subroutine work(ph, name, us)
    integer, intent(in) :: ph, us
    character(len=*), intent(in) :: name
    work_(ph) = c_now()
    call start(name)
    call sleep_us(us)
    call stop_(name)
  end subroutine work

  !> Each MPI call of the phases once before sp_setup: a wrapper looks its
  !> Fortran profiling entry point up at its first call (dlsym, a
  !> millisecond under ASan), which must not fall between the program's
  !> stamp and the recorded start.
  subroutine warm()
    integer :: x, y
    HANDLE(MPI_Request) :: rq
    x = rank
    call MPI_Bcast(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Reduce(x, y, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, half, ierr)
    if (mod(rank, 2) == 0) then
      call MPI_Ssend(x, 1, MPI_INTEGER, rank + 1, 1, MPI_COMM_WORLD, ierr)
      call MPI_Isend(x, 1, MPI_INTEGER, rank + 1, 2, MPI_COMM_WORLD, rq, ierr)
      call MPI_Wait(rq, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(x, 1, MPI_INTEGER, rank + 1, 3, MPI_COMM_WORLD, ierr)
    else
      call MPI_Recv(y, 1, MPI_INTEGER, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Recv(y, 1, MPI_INTEGER, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Recv(y, 1, MPI_INTEGER, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
    call MPI_Sendrecv(x, 1, MPI_INTEGER, mod(rank + 1, N), 4, y, 1, MPI_INTEGER, &
                      mod(rank + N - 1, N), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine warm

  subroutine sync_all()
    call start("sync")
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call stop_("sync")
  end subroutine sync_all

  subroutine phases()
    integer :: x, y, hrank
    HANDLE(MPI_Request) :: rq
    x = rank
    y = 0
    call MPI_Comm_rank(half, hrank, ierr)
    call start("phase_ls")
    select case (rank)
    case (1)
      call MPI_Send(x, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, ierr)
      call work(LS, "late_send_work", D_US)
      in_(LS) = c_now()
      call MPI_Send(x, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, ierr)
      out_(LS) = c_now()
    case (3)
      in_(LS0) = c_now()
      call MPI_Isend(x, 1, MPI_INTEGER, 2, 7, MPI_COMM_WORLD, rq, ierr)
      out_(LS0) = c_now()
      call MPI_Wait(rq, MPI_STATUS_IGNORE, ierr)
      call work(LS, "late_send_work", D_US)
      in_(LS) = c_now()
      call MPI_Send(x, 1, MPI_INTEGER, 2, 7, MPI_COMM_WORLD, ierr)
      out_(LS) = c_now()
    case (0)
      call sleep_us(SETTLE_US)
      in_(LS) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      out_(LS) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    case default
      call sleep_us(SETTLE_US)
      in_(LS0) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, 3, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      out_(LS0) = c_now()
      in_(LS) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      out_(LS) = c_now()
    end select
    call stop_("phase_ls")
    call sync_all()

    call start("phase_lr")
    if (rank == 0) then
      call sleep_us(SETTLE_US)
      in_(LR) = c_now()
      call MPI_Ssend(x, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
      out_(LR) = c_now()
    else if (rank == 1) then
      call work(LR, "late_recv_work", D_US)
      in_(LR) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      out_(LR) = c_now()
    end if
    call stop_("phase_lr")
    call sync_all()

    call start("phase_bar")
    if (rank == 2) then
      call work(BAR, "barrier_work", D_US)
    else
      call sleep_us(SETTLE_US)
    end if
    in_(BAR) = c_now()
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    out_(BAR) = c_now()
    call stop_("phase_bar")
    call sync_all()

    call start("phase_nxn")
    if (rank == 0 .or. rank == 3) then
      call work(NXN, "allreduce_work", D_US)
    else
      call sleep_us(SETTLE_US)
    end if
    in_(NXN) = c_now()
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, half, ierr)
    out_(NXN) = c_now()
    call stop_("phase_nxn")
    call sync_all()

    call start("phase_bcast")
    if (rank == 1) then
      call work(BCAST, "bcast_work", D_US)
    else
      call sleep_us(SETTLE_US)
    end if
    in_(BCAST) = c_now()
    call MPI_Bcast(x, 1, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    out_(BCAST) = c_now()
    call stop_("phase_bcast")
    call sync_all()

    call start("phase_reduce")
    if (rank == 3) then
      call work(REDUCE, "reduce_work", D_US)
    else
      call sleep_us(SETTLE_US)
    end if
    in_(REDUCE) = c_now()
    call MPI_Reduce(x, y, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    out_(REDUCE) = c_now()
    call stop_("phase_reduce")
    call sync_all()

    call start("phase_tags")
    if (hrank == 1) then
      call MPI_Send(x, 1, MPI_INTEGER, 0, 21, half, ierr)
      call work(TAGS, "tags_work", D_US)
      in_(TAGS) = c_now()
      call MPI_Send(x, 1, MPI_INTEGER, 0, 22, half, ierr)
      out_(TAGS) = c_now()
    else
      call sleep_us(SETTLE_US)
      in_(TAGS) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, 1, 22, half, MPI_STATUS_IGNORE, ierr)
      out_(TAGS) = c_now()
      call MPI_Recv(y, 1, MPI_INTEGER, 1, 21, half, MPI_STATUS_IGNORE, ierr)
    end if
    call stop_("phase_tags")
    call sync_all()

    call start("phase_sr")
    if (rank == 1) then
      call work(SR, "sendrecv_work", D_US)
    else
      call sleep_us(SETTLE_US)
    end if
    in_(SR) = c_now()
    call MPI_Sendrecv(x, 1, MPI_INTEGER, mod(rank + 1, N), 8, y, 1, MPI_INTEGER, &
                      mod(rank + N - 1, N), 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    out_(SR) = c_now()
    call stop_("phase_sr")
    call sync_all()

    call start("phase_shift")
    if (rank == 2) then
      call work(SHIFT, "shift_work", D_US)
    else
      call sleep_us(SETTLE_US)
    end if
    in_(SHIFT) = c_now()
    call MPI_Sendrecv(x, 1, MPI_INTEGER, merge(rank + 1, MPI_PROC_NULL, rank + 1 < N), 9, y, 1, &
                      MPI_INTEGER, merge(rank - 1, MPI_PROC_NULL, rank > 0), 9, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    out_(SHIFT) = c_now()
    call stop_("phase_shift")
    call sync_all()
  end subroutine phases

  !> One expected wait of rank r in phase ph until `until`, caused by rank
  !> c's delay in region (named only when r started waiting after c's delay
  !> began, as waits_delays.c).
  subroutine row(u, state, r, cpath, ph, c, until, region, ph0)
    integer, intent(in) :: u, r, ph, c
    character(len=*), intent(in) :: state, cpath, region
    integer(c_int64_t), intent(in) :: until
    integer, intent(in), optional :: ph0
    integer(c_int64_t) :: t0, late, late_hi, d, lo, hi
    character(len=:), allocatable :: named
    character(len=32) :: secs, secs_hi
    t0 = t_in(ph, r)
    late = until - t0
    ! c's call is stamped inside the call, between c's own stamps around it
    ! (a rank descheduled in between enters later than `until`): c's exit
    ! bounds it from above; a rank's wait for itself has no such slack.
    late_hi = late
    if (c /= r) late_hi = t_out(ph, c) - t0
    d = t_out(ph, r) - t0
    lo = min(late, d)
    hi = min(late_hi, d)
    named = "-"
    if (t0 >= t_work(ph, c)) named = region
    if (present(ph0)) then
      ! an earlier call of the same path waits too when c comes late (loaded node)
      if (lo <= 0) named = "-"
      d = t_out(ph0, r) - t_in(ph0, r)
      lo = max(lo, 0_c_int64_t) + max(min(t_in(ph0, c) - t_in(ph0, r), d), 0_c_int64_t)
      hi = max(hi, 0_c_int64_t) + max(min(t_out(ph0, c) - t_in(ph0, r), d), 0_c_int64_t)
    end if
    write (secs, "(f0.9)") real(lo, kind(1.0d0)) / 1.0d9
    write (secs_hi, "(f0.9)") real(hi, kind(1.0d0)) / 1.0d9
    write (u, "(a,a,i0,a,a,a,a,a,i0,a,a,a,a)") state, achar(9), r, achar(9), cpath, achar(9), &
      trim(adjustl(secs)), achar(9), c, achar(9), named, achar(9), trim(adjustl(secs_hi))
  end subroutine row

  subroutine expect(file)
    character(len=*), intent(in) :: file
    integer :: u, r, c, bar_last, even_last, odd_last, last, lr_
    character(len=16) :: why
    open (newunit=u, file=file, status="replace", action="write")
    call row(u, "late_sender", 0, "phase_ls/MPI_Recv", LS, 1, t_in(LS, 1), "late_send_work")
    call row(u, "late_sender", 2, "phase_ls/MPI_Recv", LS, 3, t_in(LS, 3), "late_send_work", LS0)
    call row(u, "late_receiver", 0, "phase_lr/MPI_Ssend", LR, 1, t_in(LR, 1), "late_recv_work")
    ! N x N and Barrier: every member waits for the last to enter, the
    ! delayed rank unless the node's load made another later still.
    bar_last = 0
    do r = 1, N - 1
      if (t_in(BAR, r) > t_in(BAR, bar_last)) bar_last = r
    end do
    even_last = merge(2, 0, t_in(NXN, 2) > t_in(NXN, 0))
    odd_last = merge(1, 3, t_in(NXN, 1) > t_in(NXN, 3))
    do r = 0, N - 1
      why = merge("barrier_work    ", "-               ", bar_last == 2)
      call row(u, "wait_barrier", r, "phase_bar/MPI_Barrier", BAR, bar_last, t_in(BAR, bar_last), &
               trim(why))
      last = merge(even_last, odd_last, mod(r, 2) == 0)
      why = merge("allreduce_work  ", "-               ", last == 0 .or. last == 3)
      call row(u, "wait_nxn", r, "phase_nxn/MPI_Allreduce", NXN, last, t_in(NXN, last), trim(why))
      if (r /= 1) call row(u, "late_broadcast", r, "phase_bcast/MPI_Bcast", BCAST, 1, &
                           t_in(BCAST, 1), "bcast_work")
    end do
    lr_ = 1
    do r = 2, N - 1
      if (t_in(REDUCE, r) > t_in(REDUCE, lr_)) lr_ = r
    end do
    why = merge("reduce_work     ", "-               ", lr_ == 3)
    call row(u, "early_reduce", 0, "phase_reduce/MPI_Reduce", REDUCE, lr_, t_in(REDUCE, lr_), &
             trim(why))
    call row(u, "late_sender", 0, "phase_tags/MPI_Recv", TAGS, 2, t_in(TAGS, 2), "tags_work")
    call row(u, "late_sender", 1, "phase_tags/MPI_Recv", TAGS, 3, t_in(TAGS, 3), "tags_work")
    ! Sendrecv: each receive half waits for its sender's entry
    do r = 0, N - 1
      c = mod(r + N - 1, N)
      why = merge("sendrecv_work   ", "-               ", c == 1)
      call row(u, "late_sender", r, "phase_sr/MPI_Sendrecv", SR, c, t_in(SR, c), trim(why))
      if (r > 0) then
        why = merge("shift_work      ", "-               ", r - 1 == 2)
        call row(u, "late_sender", r, "phase_shift/MPI_Sendrecv", SHIFT, r - 1, &
                 t_in(SHIFT, r - 1), trim(why))
      end if
    end do
    write (u, "(a)") "unpaired"//achar(9)//"not_recorded"//achar(9)//"0"
    write (u, "(a)") "unpaired"//achar(9)//"partner_not_recorded"//achar(9)//"0"
    close (u)
  end subroutine expect
end program waits_delays_f
