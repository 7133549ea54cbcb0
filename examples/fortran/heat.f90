!> 2-D heat equation, Jacobi iteration, MPI domain decomposition, profiled
!> with scope-profiler. The square plate has its top edge held at 1 and the
!> others at 0; each rank owns a block of the grid plus one halo cell on
!> every side.
!>
!> Regions, all inside "step":
!>   compute              the Jacobi update of the local block
!>   halo exchange        the four neighbour exchanges
!>   residual reduction   the global maximum change (MPI_Allreduce)
!>   output               every --output-every steps: the grid to heat_<step>.bin
!>
!> Usage: mpirun -np 4 ./heat [--n 512] [--steps 500] [--output-every 100]
!>                            [--file profiling_data.h5]
program heat
  use, intrinsic :: iso_fortran_env, only: error_unit, real64
  use mpi_f08
  use scope_profiler
  implicit none

  integer :: n = 512            ! interior points per side of the global grid
  integer :: nsteps = 500       ! time steps
  integer :: output_every = 100 ! steps between outputs, 0 = none
  character(len=256) :: profile_file = "profiling_data.h5"

  type(MPI_Comm) :: cart
  type(MPI_Datatype) :: xface, yface
  integer :: rank, nranks, dims(2), coords(2), lo(2), hi(2)
  integer :: nx, ny, x0, y0 ! local block size and its global offset (0-based)
  real(real64), allocatable :: u(:, :), unew(:, :)
  real(real64) :: local_change, residual
  integer :: h_step, h_compute, h_halo, step, st

  call MPI_Init()
  call read_arguments()
  call make_grid()

  ! Profile over the Cartesian communicator: rank<N> in the file is the
  ! rank in cart. Handles for the regions of the hot loop are made once.
  call sp_setup(cart, file_path=trim(profile_file), stat=st)
  if (st /= SP_OK .and. rank == 0) write (error_unit, "(2a)") "heat: sp_setup: ", sp_strerror(st)
  h_step = sp_region("step")
  h_compute = sp_region("compute")
  h_halo = sp_region("halo exchange")

  do step = 1, nsteps
    call sp_start(h_step)

    ! The block API: the scope stops "halo exchange" at end block.
    block
      type(sp_scope) :: halo
      call halo%start(h_halo)
      call exchange_halos()
    end block

    call sp_start(h_compute)
    call jacobi_update(local_change)
    call sp_stop(h_compute)

    ! By name: no handle needed, no string copy either.
    call sp_start("residual reduction")
    call MPI_Allreduce(local_change, residual, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
    call sp_stop("residual reduction")

    if (output_every > 0) then
      if (mod(step, output_every) == 0) then
        block
          type(sp_scope) :: io
          call io%start("output")
          call write_grid(step)
          if (rank == 0) print "(a,i6,a,es10.3)", "step ", step, "  residual ", residual
        end block
      end if
    end if

    call sp_stop(h_step)
  end do

  ! Collective: every rank of cart writes its part of one file.
  call sp_finalize(stat=st)
  if (st /= SP_OK .and. rank == 0) write (error_unit, "(2a)") "heat: sp_finalize: ", sp_strerror(st)
  if (rank == 0) print "(3a)", "profile written to ", trim(profile_file), &
    "; draw it with: scope-profiler-pproc " // trim(profile_file) // " -o figures/"

  call MPI_Type_free(xface)
  call MPI_Type_free(yface)
  call MPI_Comm_free(cart)
  deallocate (u, unew)
  call MPI_Finalize()

contains

  !> Reads --n, --steps, --output-every and --file.
  subroutine read_arguments()
    character(len=256) :: key, val
    integer :: i, ios

    i = 1
    do while (i < command_argument_count())
      call get_command_argument(i, key)
      call get_command_argument(i + 1, val)
      ios = 0
      select case (key)
      case ("--n")
        read (val, *, iostat=ios) n
      case ("--steps")
        read (val, *, iostat=ios) nsteps
      case ("--output-every")
        read (val, *, iostat=ios) output_every
      case ("--file")
        profile_file = val
      case default
        ios = 1
      end select
      if (ios /= 0) then
        write (error_unit, "(5a)") "heat: bad argument ", trim(key), " ", trim(val), &
          "; usage: heat [--n N] [--steps S] [--output-every K] [--file F]"
        call MPI_Abort(MPI_COMM_WORLD, 2)
      end if
      i = i + 2
    end do
  end subroutine read_arguments

  !> Splits the n x n grid over a 2-D process grid and allocates the block.
  subroutine make_grid()
    integer :: d, sizes(2), offsets(2)

    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    dims = 0
    call MPI_Dims_create(nranks, 2, dims)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.false., .false.], .true., cart)
    call MPI_Comm_rank(cart, rank)
    call MPI_Cart_coords(cart, rank, 2, coords)
    do d = 1, 2
      call MPI_Cart_shift(cart, d - 1, 1, lo(d), hi(d))
      ! The first mod(n, dims) blocks get one point more.
      sizes(d) = n / dims(d) + merge(1, 0, coords(d) < mod(n, dims(d)))
      offsets(d) = coords(d) * (n / dims(d)) + min(coords(d), mod(n, dims(d)))
    end do
    nx = sizes(1)
    ny = sizes(2)
    x0 = offsets(1)
    y0 = offsets(2)

    allocate (u(0:nx + 1, 0:ny + 1), unew(nx, ny))
    u = 0
    if (hi(2) == MPI_PROC_NULL) u(:, ny + 1) = 1 ! the hot top edge

    ! A face across x is a strided column, a face across y a contiguous row.
    call MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE_PRECISION, xface)
    call MPI_Type_contiguous(nx, MPI_DOUBLE_PRECISION, yface)
    call MPI_Type_commit(xface)
    call MPI_Type_commit(yface)
  end subroutine make_grid

  !> Fills the halo cells from the four neighbours (none at the plate's edge).
  subroutine exchange_halos()
    call MPI_Sendrecv(u(1, 1), 1, xface, lo(1), 1, u(nx + 1, 1), 1, xface, hi(1), 1, &
                      cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(nx, 1), 1, xface, hi(1), 2, u(0, 1), 1, xface, lo(1), 2, &
                      cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1, 1), 1, yface, lo(2), 3, u(1, ny + 1), 1, yface, hi(2), 3, &
                      cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1, ny), 1, yface, hi(2), 4, u(1, 0), 1, yface, lo(2), 4, &
                      cart, MPI_STATUS_IGNORE)
  end subroutine exchange_halos

  !> One Jacobi sweep over the block; change is the largest local update.
  subroutine jacobi_update(change)
    real(real64), intent(out) :: change
    integer :: i, j

    do j = 1, ny
      do i = 1, nx
        unew(i, j) = 0.25_real64 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
    change = maxval(abs(unew - u(1:nx, 1:ny)))
    u(1:nx, 1:ny) = unew
  end subroutine jacobi_update

  !> Writes the global grid (n x n doubles, column-major) to heat_<step>.bin
  !> with collective MPI-IO, each rank its block.
  subroutine write_grid(step_no)
    integer, intent(in) :: step_no
    type(MPI_Datatype) :: filetype, memtype
    type(MPI_File) :: fh
    character(len=32) :: name
    integer :: ierr

    write (name, "(a,i6.6,a)") "heat_", step_no, ".bin"
    call MPI_Type_create_subarray(2, [n, n], [nx, ny], [x0, y0], MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, filetype)
    call MPI_Type_create_subarray(2, [nx + 2, ny + 2], [nx, ny], [1, 1], MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, memtype)
    call MPI_Type_commit(filetype)
    call MPI_Type_commit(memtype)
    call MPI_File_open(cart, trim(name), MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, &
                       ierr)
    ! File errors return by default instead of aborting: skip this output.
    if (ierr /= MPI_SUCCESS) then
      if (rank == 0) write (error_unit, "(2a)") "heat: cannot open ", trim(name)
      call MPI_Type_free(filetype)
      call MPI_Type_free(memtype)
      return
    end if
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_DOUBLE_PRECISION, filetype, "native", &
                           MPI_INFO_NULL)
    call MPI_File_write_all(fh, u, 1, memtype, MPI_STATUS_IGNORE)
    call MPI_File_close(fh)
    call MPI_Type_free(filetype)
    call MPI_Type_free(memtype)
  end subroutine write_grid

end program heat
