!> Fortran binding of scope-profiler: the same profiler state and the same
!> output file as the C library (`scope_profiler.h`), reached through
!> ISO_C_BINDING with no glue code in C.
!>
!> Simple use:
!>
!>     use scope_profiler
!>     integer :: h
!>     call sp_setup()                      ! defaults, environment overrides
!>     h = sp_region("compute")             ! once
!>     do step = 1, n
!>        call sp_start(h); call work(); call sp_stop(h)
!>     end do
!>     block
!>        type(sp_scope) :: s
!>        call s%start("io")                ! stopped at end block, exit, cycle, return
!>        call write_output()
!>     end block
!>     call sp_finalize()                   ! writes profiling_data.h5
!>
!> Cost: `sp_start(h)`/`sp_stop(h)` with an integer handle call the C
!> functions directly (the generic resolves to the `bind(C)` interface), so
!> the handle path costs what the C one costs. The string path passes the
!> address and length of the name to C (which drops trailing blanks): no
!> copy, no allocation.
!>
!> Errors: procedures that can fail take optional `stat` and `errmsg`
!> arguments (last, `intent(out)`). `stat` receives 0 or one of the negative
!> `SP_E*` constants below, which equal the C codes; `errmsg` receives the
!> text of `sp_strerror` (blank on success). Without `stat` a failure is
!> reported on `error_unit` with the prefix "scope-profiler:"; the program
!> is never stopped.
!>
!> With MPI (the library built with `SCOPE_PROFILER_ENABLE_MPI`), `sp_setup`
!> and `sp_mpi_set_comm` take a communicator either as an `integer` (`use mpi`)
!> or as a `type(MPI_Comm)` (`use mpi_f08`).
module scope_profiler
  use, intrinsic :: iso_c_binding, only: c_associated, c_char, c_f_pointer, c_int, &
    c_int64_t, c_loc, c_null_char, c_ptr, c_size_t, c_double
  use, intrinsic :: iso_fortran_env, only: error_unit, int64, real64
#ifdef SP_FORTRAN_WITH_MPI
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private

  public :: sp_setup, sp_finalize, sp_region, sp_start, sp_stop, sp_scope
  public :: sp_mpi_set_comm, sp_is_active, sp_strerror, sp_err_name
  public :: sp_misuse_count, sp_clock_now_ns, sp_version_string
  public :: sp_report, sp_reset, sp_region_stats, sp_region_stats_t
  public :: sp_trace_pause, sp_trace_resume
  public :: sp_metadata_set, sp_call_set
  public :: SP_OK, SP_EINVAL, SP_ENOMEM, SP_ENAMETOOLONG, SP_ENOTSETUP, SP_EIO, &
    SP_EHDF5, SP_EMPI, SP_EPATH, SP_ESPILL, SP_ENOTSUP, SP_ETOOMANY, SP_ELOST, &
    SP_ETIMEDOUT, SP_EPARTIAL, SP_EBUSY
  public :: SP_NAME_MAX, SP_PATH_MAX, SP_VERSION_MAJOR, SP_VERSION_MINOR, &
    SP_VERSION_PATCH, SP_SCHEMA_VERSION
  public :: SP_MISUSE_STOP_WITHOUT_START, SP_MISUSE_STOP_MISMATCH, &
    SP_MISUSE_INVALID_HANDLE, SP_MISUSE_BAD_NAME, SP_MISUSE_UNBALANCED, &
    SP_MISUSE_NOT_ACTIVE, SP_MISUSE_REENTERED, SP_MISUSE_VALUE_NO_CALL, SP_MISUSE_VALUES_LOST
  public :: SP_LAYOUT_AUTO, SP_LAYOUT_COLUMNAR, SP_LAYOUT_RANKS, SP_LAYOUT_BOTH
  public :: SP_OPENMP_OFF, SP_OPENMP_ON, SP_OPENMP_TASKS, SP_OPENMP_LOCKS, SP_OPENMP_ALL

  ! ---- Constants: the values of scope_profiler.h (SP_ERRNO_MAP etc.) ----

  !> Success.
  integer, parameter :: SP_OK = 0
  !> Invalid argument.
  integer, parameter :: SP_EINVAL = -1
  !> Out of memory.
  integer, parameter :: SP_ENOMEM = -2
  !> Region name longer than `SP_NAME_MAX` bytes.
  integer, parameter :: SP_ENAMETOOLONG = -3
  !> Profiler not set up (call `sp_setup` first).
  integer, parameter :: SP_ENOTSETUP = -4
  !> I/O error while writing profile data.
  integer, parameter :: SP_EIO = -5
  !> An HDF5 call failed.
  integer, parameter :: SP_EHDF5 = -6
  !> An MPI call failed or MPI is unusable.
  integer, parameter :: SP_EMPI = -7
  !> Output path not writable.
  integer, parameter :: SP_EPATH = -8
  !> Spill file unreadable or damaged.
  integer, parameter :: SP_ESPILL = -9
  !> Feature not built into this library (for example MPI).
  integer, parameter :: SP_ENOTSUP = -10
  !> Too many regions.
  integer, parameter :: SP_ETOOMANY = -11
  !> Recorded events were lost (see the message on stderr); from `sp_finalize`
  !> when the file was written without them.
  integer, parameter :: SP_ELOST = -12
  !> Ranks did not reach `sp_finalize` in time (`SCOPE_PROFILER_FINALIZE_TIMEOUT`).
  integer, parameter :: SP_ETIMEDOUT = -13
  !> Some ranks or records could not be recovered (sp_spill_merge).
  integer, parameter :: SP_EPARTIAL = -14
  !> Other threads are recording in the running session (`sp_setup` again).
  integer, parameter :: SP_EBUSY = -15

  !> Longest region name accepted, in bytes.
  integer, parameter :: SP_NAME_MAX = 4096
  !> Longest output path, in bytes.
  integer, parameter :: SP_PATH_MAX = 4096
  !> Version of the interface this module was written for; compare with
  !> `sp_version_string()` for the library actually linked.
  !> (The numbers come from CMake's project(VERSION), fortran/CMakeLists.txt.)
  integer, parameter :: SP_VERSION_MAJOR = SP_PROJECT_VERSION_MAJOR, &
                        SP_VERSION_MINOR = SP_PROJECT_VERSION_MINOR, &
                        SP_VERSION_PATCH = SP_PROJECT_VERSION_PATCH
  !> Version of the file layout (root attribute `scope_profiler_schema`).
  integer, parameter :: SP_SCHEMA_VERSION = 1

  !> Kinds of misuse counted by the hot path (`sp_misuse_t`), for `sp_misuse_count`.
  integer, parameter :: SP_MISUSE_STOP_WITHOUT_START = 0, SP_MISUSE_STOP_MISMATCH = 1, &
    SP_MISUSE_INVALID_HANDLE = 2, SP_MISUSE_BAD_NAME = 3, SP_MISUSE_UNBALANCED = 4, &
    SP_MISUSE_NOT_ACTIVE = 5, SP_MISUSE_REENTERED = 6, SP_MISUSE_VALUE_NO_CALL = 7, &
    SP_MISUSE_VALUES_LOST = 8

  !> `sp_config%layout` (`sp_setup(layout=...)`): the trace file's layout (docs/settings.md).
  integer, parameter :: SP_LAYOUT_AUTO = 0, SP_LAYOUT_COLUMNAR = 1, SP_LAYOUT_RANKS = 2, &
    SP_LAYOUT_BOTH = 3
  !> `sp_config%openmp` (`sp_setup(openmp=...)`): OpenMP constructs through OMPT (docs/openmp.md).
  integer, parameter :: SP_OPENMP_OFF = 0, SP_OPENMP_ON = 1, SP_OPENMP_TASKS = 2, &
    SP_OPENMP_LOCKS = 3, SP_OPENMP_ALL = 4

  ! ---- The C structure sp_config, field for field ----
  type, bind(C) :: sp_config_c
    integer(c_int) :: profiling_activated
    integer(c_int) :: use_likwid
    integer(c_int) :: time_trace
    integer(c_int) :: flush_to_disk
    integer(c_int64_t) :: buffer_limit
    type(c_ptr) :: file_path !! const char *, NUL-terminated, copied by sp_setup
    integer(c_int) :: profile_mpi
    integer(c_int) :: aggregate
    integer(c_int) :: sample_ms
    integer(c_int) :: layout
    integer(c_int) :: reduce
    integer(c_int) :: nvtx
    integer(c_int) :: trace_max_mb
    integer(c_int) :: openmp
    integer(c_int) :: profile_io
  end type sp_config_c

  !> One region's figures in this process so far (`sp_region_stats`), ns.
  type, bind(C) :: sp_region_stats_t
    integer(c_int64_t) :: calls = 0 !! finished calls, summed over threads
    integer(c_int64_t) :: total_ns = 0 !! sum of their durations
    integer(c_int64_t) :: min_ns = 0 !! shortest call
    integer(c_int64_t) :: max_ns = 0 !! longest call
    integer(c_int64_t) :: exclusive_ns = 0 !! total less the calls directly inside
  end type sp_region_stats_t

  !> A region call that ends with the scope of the variable: declared in a
  !> `block`, it is stopped by its final procedure when control leaves the
  !> block in any way (`end block`, `exit`, `cycle`, `return`).
  !>
  !>     block
  !>        type(sp_scope) :: s
  !>        call s%start("halo")       ! or call s%start(h)
  !>        ...
  !>     end block
  !>
  !> Scopes must be left in the reverse order of their start, as blocks are.
  !> Declare scopes as scalars (the final procedure is scalar). With a
  !> handle a scope costs what `sp_start(h)`/`sp_stop(h)` cost plus
  !> gfortran's finalization wrapper (it allocates a small descriptor per
  !> finalization); by name it also pays one name lookup at the start.
  !> In the hottest loops prefer `sp_start(h)`/`sp_stop(h)`.
  type :: sp_scope
    private
    integer(c_int) :: h = -1 !! handle of the open call, -1 when none
  contains
    procedure, private :: scope_start_handle
    procedure, private :: scope_start_name
    !> Opens a call of a region given by handle or by name; a call this
    !> scope already had open is stopped first.
    generic, public :: start => scope_start_handle, scope_start_name
    !> Stops the open call now instead of at the end of the scope.
    procedure, public :: stop => scope_stop
    final :: scope_final
  end type sp_scope

  ! ---- Hot path: the generics resolve directly to the C functions ----
  ! Unlike the C macros, nothing here tests sp__enabled before the call: a
  ! bind(C) module variable would be a second definition of that symbol,
  ! not a reference to the library's. A disabled profiler costs one call.

  !> Opens one call of a region on the calling thread: `call sp_start(h)`
  !> with a handle from `sp_region`, or `call sp_start("name")` (trailing
  !> blanks ignored; the name is registered on first use). Never fails
  !> loudly: misuse is counted (`sp_misuse_count`) and reported once.
  interface sp_start
    ! void sp_start(int h);
    subroutine sp_start_handle(h) bind(C, name="sp_start")
      import :: c_int
      integer(c_int), value, intent(in) :: h
    end subroutine sp_start_handle
    module procedure sp_start_name
  end interface sp_start

  !> Closes the innermost open call on the calling thread, which must be of
  !> the region given by handle or by name. Misuse is counted and reported once.
  interface sp_stop
    ! void sp_stop(int h);
    subroutine sp_stop_handle(h) bind(C, name="sp_stop")
      import :: c_int
      integer(c_int), value, intent(in) :: h
    end subroutine sp_stop_handle
    module procedure sp_stop_name
  end interface sp_stop

  !> Starts a profiling session. Every argument is optional; absent ones
  !> keep the C defaults, and environment variables (`SCOPE_PROFILER_*`)
  !> override both. With MPI, `comm` (an `integer` or a `type(MPI_Comm)`)
  !> is the communicator over which `sp_finalize` writes the file.
  interface sp_setup
    module procedure sp_setup_int
#ifdef SP_FORTRAN_WITH_MPI
    module procedure sp_setup_f08
#endif
  end interface sp_setup

  !> Sets the communicator over which `sp_finalize` writes the file
  !> (`integer` or `type(MPI_Comm)`); see `sp_mpi_set_comm` in
  !> `scope_profiler_mpi.h`: the library keeps a duplicate, so the program may
  !> free its communicator at once. Without MPI in the library it fails with `SP_ENOTSUP`.
  interface sp_mpi_set_comm
    module procedure sp_mpi_set_comm_int
#ifdef SP_FORTRAN_WITH_MPI
    module procedure sp_mpi_set_comm_f08
#endif
  end interface sp_mpi_set_comm

  !> Stores `key = value` as an attribute of the profile's `/metadata` group
  !> (see `sp_metadata_set` in scope_profiler.h for the rules): `value` is a
  !> character string (trailing blanks dropped), an integer (default kind or
  !> `int64`, stored as int64) or a real (default kind or `real64`, stored as
  !> float64). Trailing blanks of `key` are ignored. A refusal (bad key,
  !> one of the library's own keys, outside a session) is said on stderr and
  !> returned in `stat` (`SP_EINVAL`, `SP_ENOTSETUP`, `SP_ETOOMANY`).
  interface sp_metadata_set
    module procedure sp_metadata_set_str
    module procedure sp_metadata_set_int32
    module procedure sp_metadata_set_int64
    module procedure sp_metadata_set_real32
    module procedure sp_metadata_set_real64
  end interface sp_metadata_set

  !> Values per call (`sp_call_set_int` in scope_profiler.h, docs/values.md):
  !> `key = value` on the innermost call open on this thread, stored beside
  !> its stamps in the trace. `value` is an integer (default kind or
  !> `int64`: int64), a real (default kind or `real64`: float64) or a
  !> character string (trailing blanks dropped). Trailing blanks of `key`
  !> are ignored. A refusal (no call open, a bad key, a 65th key in the
  !> region) is said once on stderr by the library and returned in `stat`.
  interface sp_call_set
    module procedure sp_call_set_str
    module procedure sp_call_set_int32
    module procedure sp_call_set_int64
    module procedure sp_call_set_real32
    module procedure sp_call_set_real64
  end interface sp_call_set

  ! ---- The rest of the C API, private except where noted ----
  interface
    ! int sp__region_at_f(const char *name, size_t len, const char *file, size_t flen, int line);
    function c_sp_region_at_f(name, len, file, flen, line) bind(C, name="sp__region_at_f") &
      result(h)
      import :: c_char, c_int, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value, intent(in) :: len
      character(kind=c_char), dimension(*), intent(in) :: file
      integer(c_size_t), value, intent(in) :: flen
      integer(c_int), value, intent(in) :: line
      integer(c_int) :: h
    end function c_sp_region_at_f

    ! int sp_metadata_set_n(const char *key, size_t key_len, const char *value, size_t value_len);
    function c_sp_metadata_set_n(key, klen, val, vlen) bind(C, name="sp_metadata_set_n") &
      result(err)
      import :: c_char, c_int, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: key
      integer(c_size_t), value, intent(in) :: klen
      character(kind=c_char), dimension(*), intent(in) :: val
      integer(c_size_t), value, intent(in) :: vlen
      integer(c_int) :: err
    end function c_sp_metadata_set_n

    ! int sp__metadata_set_f(const char *key, size_t klen, int type, const void *val, size_t vlen);
    function c_sp_metadata_set_f(key, klen, type, val, vlen) bind(C, name="sp__metadata_set_f") &
      result(err)
      import :: c_char, c_int, c_size_t, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: key
      integer(c_size_t), value, intent(in) :: klen
      integer(c_int), value, intent(in) :: type
      type(c_ptr), value, intent(in) :: val
      integer(c_size_t), value, intent(in) :: vlen
      integer(c_int) :: err
    end function c_sp_metadata_set_f

    ! int sp__call_set_f(const char *key, size_t klen, int type, const void *val, size_t vlen);
    function c_sp_call_set_f(key, klen, type, val, vlen) bind(C, name="sp__call_set_f") &
      result(err)
      import :: c_char, c_int, c_size_t, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: key
      integer(c_size_t), value, intent(in) :: klen
      integer(c_int), value, intent(in) :: type
      type(c_ptr), value, intent(in) :: val
      integer(c_size_t), value, intent(in) :: vlen
      integer(c_int) :: err
    end function c_sp_call_set_f

    ! int sp__start_name_f(const char *name, size_t len);  (trailing blanks ignored)
    function c_sp_start_name_f(name, len) bind(C, name="sp__start_name_f") result(h)
      import :: c_char, c_int, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value, intent(in) :: len
      integer(c_int) :: h
    end function c_sp_start_name_f

    ! void sp__stop_name_f(const char *name, size_t len);  (trailing blanks ignored)
    subroutine c_sp_stop_name_f(name, len) bind(C, name="sp__stop_name_f")
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value, intent(in) :: len
    end subroutine c_sp_stop_name_f

    ! int sp_region_n(const char *name, size_t len);
    function c_sp_region_n(name, len) bind(C, name="sp_region_n") result(h)
      import :: c_char, c_int, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value, intent(in) :: len
      integer(c_int) :: h
    end function c_sp_region_n

    ! void sp_config_init(sp_config *cfg);
    subroutine c_sp_config_init(cfg) bind(C, name="sp_config_init")
      import :: sp_config_c
      type(sp_config_c), intent(out) :: cfg
    end subroutine c_sp_config_init

    ! int sp_setup(const sp_config *cfg);
    function c_sp_setup(cfg) bind(C, name="sp_setup") result(err)
      import :: c_int, sp_config_c
      type(sp_config_c), intent(in) :: cfg
      integer(c_int) :: err
    end function c_sp_setup

    ! int sp_report(const char *path);
    function c_sp_report(path) bind(C, name="sp_report") result(err)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: err
    end function c_sp_report

    ! int sp_reset(void);
    function c_sp_reset() bind(C, name="sp_reset") result(err)
      import :: c_int
      integer(c_int) :: err
    end function c_sp_reset

    ! int sp_trace_pause(void);
    function c_sp_trace_pause() bind(C, name="sp_trace_pause") result(err)
      import :: c_int
      integer(c_int) :: err
    end function c_sp_trace_pause

    ! int sp_trace_resume(void);
    function c_sp_trace_resume() bind(C, name="sp_trace_resume") result(err)
      import :: c_int
      integer(c_int) :: err
    end function c_sp_trace_resume

    ! int sp_region_stats(int h, sp_region_stats_t *out);
    function c_sp_region_stats(h, out) bind(C, name="sp_region_stats") result(err)
      import :: c_int, sp_region_stats_t
      integer(c_int), value, intent(in) :: h
      type(sp_region_stats_t), intent(out) :: out
      integer(c_int) :: err
    end function c_sp_region_stats

    ! int sp_finalize(void);
    function c_sp_finalize() bind(C, name="sp_finalize") result(err)
      import :: c_int
      integer(c_int) :: err
    end function c_sp_finalize

    ! int sp_is_active(void);
    function c_sp_is_active() bind(C, name="sp_is_active") result(active)
      import :: c_int
      integer(c_int) :: active
    end function c_sp_is_active

    ! const char *sp_strerror(int err);
    function c_sp_strerror(err) bind(C, name="sp_strerror") result(text)
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: err
      type(c_ptr) :: text
    end function c_sp_strerror

    ! const char *sp_err_name(int err);
    function c_sp_err_name(err) bind(C, name="sp_err_name") result(text)
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: err
      type(c_ptr) :: text
    end function c_sp_err_name

    ! const char *sp_version_string(void);
    function c_sp_version_string() bind(C, name="sp_version_string") result(text)
      import :: c_ptr
      type(c_ptr) :: text
    end function c_sp_version_string

    ! int64_t sp_misuse_count(sp_misuse_t kind);
    function c_sp_misuse_count(kind) bind(C, name="sp_misuse_count") result(n)
      import :: c_int, c_int64_t
      integer(c_int), value, intent(in) :: kind
      integer(c_int64_t) :: n
    end function c_sp_misuse_count

    !> Current time in the stamps' domain: CLOCK_MONOTONIC nanoseconds.
    ! int64_t sp_clock_now_ns(void);
    function sp_clock_now_ns() bind(C, name="sp_clock_now_ns") result(ns)
      import :: c_int64_t
      integer(c_int64_t) :: ns
    end function sp_clock_now_ns

    ! size_t strlen(const char *s);
    function c_strlen(s) bind(C, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value, intent(in) :: s
      integer(c_size_t) :: n
    end function c_strlen

    ! int sp_mpi_set_comm_f(MPI_Fint comm);  (SP_ENOTSUP in a library without MPI)
    function c_sp_mpi_set_comm_f(comm) bind(C, name="sp_mpi_set_comm_f") result(err)
      import :: c_int
      integer(c_int), value, intent(in) :: comm
      integer(c_int) :: err
    end function c_sp_mpi_set_comm_f
  end interface

contains

  ! ---- Regions --------------------------------------------------------

  !> Registers a region and returns its handle (>= 0); the same name always
  !> gives the same handle within a session. Trailing blanks of `name` are
  !> ignored. Call it once per region, outside the loop. A handle made
  !> before `sp_setup` is kept for the session that follows; `sp_finalize`
  !> and a repeated `sp_setup` forget all handles. On failure the
  !> result is the negative error code (`SP_EINVAL` for a blank name,
  !> `SP_ENAMETOOLONG`, `SP_ENOMEM`, `SP_ETOOMANY`), also given in `stat`.
  !> With `file` (and `line`), the region's place in the source is stored as
  !> its attributes `source_file` and `source_lineno` (the first place given
  !> for a region is kept); in a `.F90` file, `#include "scope_profiler.h90"`
  !> and `SP_REGION_HERE("name")` fills both in.
  function sp_region(name, stat, errmsg, file, line) result(h)
    character(len=*), intent(in) :: name !! region name, free text (UTF-8)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    character(len=*), intent(in), optional :: file !! source file (trailing blanks ignored)
    integer, intent(in), optional :: line !! source line (>= 0; 0 when absent)
    integer :: h
    integer(c_int) :: ln

    if (present(file)) then
      ln = 0
      if (present(line)) ln = int(line, c_int)
      h = c_sp_region_at_f(name, int(len_trim(name), c_size_t), file, &
                           int(len_trim(file), c_size_t), ln)
    else
      h = c_sp_region_n(name, int(len_trim(name), c_size_t))
    end if
    call sp_status(min(h, 0), "sp_region", stat, errmsg)
  end function sp_region

  ! ---- Run metadata ---------------------------------------------------

  !> `call sp_metadata_set(key, "text")`.
  subroutine sp_metadata_set_str(key, value, stat, errmsg)
    character(len=*), intent(in) :: key !! attribute name; trailing blanks ignored
    character(len=*), intent(in) :: value !! UTF-8 text; trailing blanks dropped
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_metadata_set_n(key, int(len_trim(key), c_size_t), value, &
                                       int(len_trim(value), c_size_t)), &
                   "sp_metadata_set", stat, errmsg)
  end subroutine sp_metadata_set_str

  subroutine sp_metadata_set_i64(key, value, stat, errmsg)
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(out), optional :: errmsg
    integer(c_int64_t), target :: v
    v = value
    call sp_status(c_sp_metadata_set_f(key, int(len_trim(key), c_size_t), 2_c_int, c_loc(v), &
                                       8_c_size_t), "sp_metadata_set", stat, errmsg)
  end subroutine sp_metadata_set_i64

  subroutine sp_metadata_set_f64(key, value, stat, errmsg)
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(out), optional :: errmsg
    real(c_double), target :: v
    v = value
    call sp_status(c_sp_metadata_set_f(key, int(len_trim(key), c_size_t), 3_c_int, c_loc(v), &
                                       8_c_size_t), "sp_metadata_set", stat, errmsg)
  end subroutine sp_metadata_set_f64

  !> `call sp_metadata_set(key, n)` with a default integer: stored as int64.
  subroutine sp_metadata_set_int32(key, value, stat, errmsg)
    character(len=*), intent(in) :: key !! attribute name; trailing blanks ignored
    integer, intent(in) :: value !! stored as int64
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_metadata_set_i64(key, int(value, c_int64_t), stat, errmsg)
  end subroutine sp_metadata_set_int32

  !> `call sp_metadata_set(key, n)` with an `integer(int64)`.
  subroutine sp_metadata_set_int64(key, value, stat, errmsg)
    character(len=*), intent(in) :: key !! attribute name; trailing blanks ignored
    integer(int64), intent(in) :: value !! stored as int64
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_metadata_set_i64(key, int(value, c_int64_t), stat, errmsg)
  end subroutine sp_metadata_set_int64

  !> `call sp_metadata_set(key, x)` with a default real: stored as float64.
  subroutine sp_metadata_set_real32(key, value, stat, errmsg)
    character(len=*), intent(in) :: key !! attribute name; trailing blanks ignored
    real, intent(in) :: value !! stored as float64 (the default real's value, widened)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_metadata_set_f64(key, real(value, c_double), stat, errmsg)
  end subroutine sp_metadata_set_real32

  !> `call sp_metadata_set(key, x)` with a `real(real64)`.
  subroutine sp_metadata_set_real64(key, value, stat, errmsg)
    character(len=*), intent(in) :: key !! attribute name; trailing blanks ignored
    real(real64), intent(in) :: value !! stored as float64
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_metadata_set_f64(key, real(value, c_double), stat, errmsg)
  end subroutine sp_metadata_set_real64

  !> `call sp_start("name")`: passes the address and length, no copy (the C
  !> side drops the trailing blanks).
  subroutine sp_start_name(name)
    character(len=*), intent(in) :: name !! region name; trailing blanks ignored
    integer(c_int) :: h
    h = c_sp_start_name_f(name, int(len(name), c_size_t))
  end subroutine sp_start_name

  !> `call sp_stop("name")`: passes the address and length, no copy.
  subroutine sp_stop_name(name)
    character(len=*), intent(in) :: name !! region name; trailing blanks ignored
    call c_sp_stop_name_f(name, int(len(name), c_size_t))
  end subroutine sp_stop_name

  ! ---- sp_scope -------------------------------------------------------

  !> `call s%start(h)`: opens a call of region `h` until the end of the scope.
  subroutine scope_start_handle(self, h)
    class(sp_scope), intent(inout) :: self
    integer, intent(in) :: h !! handle from `sp_region`
    call scope_stop(self)
    self%h = h
    call sp_start_handle(self%h)
  end subroutine scope_start_handle

  !> `call s%start("name")`: starts by name as `sp_start("name")` does (the
  !> thread's cache of name addresses serves a literal without a lookup) and
  !> keeps the handle, so that the stop needs neither the name nor a copy.
  !> A bad name or an inactive profiler is counted and reported by the C
  !> library, and the scope opens nothing.
  subroutine scope_start_name(self, name)
    class(sp_scope), intent(inout) :: self
    character(len=*), intent(in) :: name !! region name; trailing blanks ignored
    if (self%h >= 0) call scope_stop(self)
    self%h = c_sp_start_name_f(name, int(len(name), c_size_t))
  end subroutine scope_start_name

  !> `call s%stop()`: closes the scope's call now; does nothing if none is open.
  subroutine scope_stop(self)
    class(sp_scope), intent(inout) :: self
    if (self%h < 0) return
    call sp_stop_handle(self%h)
    self%h = -1
  end subroutine scope_stop

  !> Final procedure: closes the call still open when the variable goes out
  !> of scope. Scalar, not elemental: gfortran's finalization wrapper then
  !> allocates one descriptor buffer per call instead of two.
  subroutine scope_final(self)
    type(sp_scope), intent(inout) :: self
    call scope_stop(self)
  end subroutine scope_final

  ! ---- Lifecycle ------------------------------------------------------

  !> `sp_setup` with an `integer` communicator (`use mpi`) or none.
  !> Returns in `stat` the first error of the setup and of the communicator.
  subroutine sp_setup_int(comm, profiling_activated, use_likwid, time_trace, &
                          flush_to_disk, buffer_limit, file_path, stat, errmsg, aggregate, &
                          sample_ms, profile_mpi, layout, reduce, nvtx, trace_max_mb, openmp, profile_io)
    integer, intent(in), optional :: comm !! MPI communicator handle (`use mpi`)
    logical, intent(in), optional :: profiling_activated !! master switch (default true)
    logical, intent(in), optional :: use_likwid !! LIKWID markers around regions (default false)
    logical, intent(in), optional :: time_trace !! record stamps; false = call counts only (default true)
    logical, intent(in), optional :: flush_to_disk !! spill full buffers to disk (default true)
    integer, intent(in), optional :: buffer_limit !! events per thread and region before a flush (default 100000)
    character(len=*), intent(in), optional :: file_path !! merged output file (default "profiling_data.h5")
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    logical, intent(in), optional :: aggregate !! profile mode: statistics per call path (default false)
    integer, intent(in), optional :: sample_ms !! RSS and CPU time every sample_ms ms (default 0: off)
    logical, intent(in), optional :: profile_mpi !! MPI calls as regions with bytes and peers (default false)
    integer, intent(in), optional :: layout !! the trace file's layout, an SP_LAYOUT_* (default SP_LAYOUT_AUTO)
    integer, intent(in), optional :: reduce !! profile mode reduced across ranks: 1 on, 0 off, -1 auto (default)
    logical, intent(in), optional :: nvtx !! regions also as NVTX ranges for Nsight (default false)
    integer, intent(in), optional :: trace_max_mb !! the trace's cap in MB per process (default 0: none)
    integer, intent(in), optional :: openmp !! OpenMP constructs through OMPT, an SP_OPENMP_* (default SP_OPENMP_OFF)
    logical, intent(in), optional :: profile_io !! POSIX, stdio and MPI-IO calls as regions (default false)
    integer :: err

    err = sp_setup_config(profiling_activated, use_likwid, time_trace, flush_to_disk, &
                          buffer_limit, file_path, aggregate, sample_ms, profile_mpi, layout, reduce, &
                          nvtx, trace_max_mb, openmp, profile_io)
    if (present(comm)) call sp_keep_first(err, c_sp_mpi_set_comm_f(comm))
    call sp_status(err, "sp_setup", stat, errmsg)
  end subroutine sp_setup_int

#ifdef SP_FORTRAN_WITH_MPI
  !> `sp_setup` with a `type(MPI_Comm)` communicator (`use mpi_f08`).
  subroutine sp_setup_f08(comm, profiling_activated, use_likwid, time_trace, &
                          flush_to_disk, buffer_limit, file_path, stat, errmsg, aggregate, &
                          sample_ms, profile_mpi, layout, reduce, nvtx, trace_max_mb, openmp, profile_io)
    type(MPI_Comm), intent(in) :: comm !! communicator for writing the file
    logical, intent(in), optional :: profiling_activated !! master switch (default true)
    logical, intent(in), optional :: use_likwid !! LIKWID markers around regions (default false)
    logical, intent(in), optional :: time_trace !! record stamps; false = call counts only (default true)
    logical, intent(in), optional :: flush_to_disk !! spill full buffers to disk (default true)
    integer, intent(in), optional :: buffer_limit !! events per thread and region before a flush (default 100000)
    character(len=*), intent(in), optional :: file_path !! merged output file (default "profiling_data.h5")
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    logical, intent(in), optional :: aggregate !! profile mode: statistics per call path (default false)
    integer, intent(in), optional :: sample_ms !! RSS and CPU time every sample_ms ms (default 0: off)
    logical, intent(in), optional :: profile_mpi !! MPI calls as regions with bytes and peers (default false)
    integer, intent(in), optional :: layout !! the trace file's layout, an SP_LAYOUT_* (default SP_LAYOUT_AUTO)
    integer, intent(in), optional :: reduce !! profile mode reduced across ranks: 1 on, 0 off, -1 auto (default)
    logical, intent(in), optional :: nvtx !! regions also as NVTX ranges for Nsight (default false)
    integer, intent(in), optional :: trace_max_mb !! the trace's cap in MB per process (default 0: none)
    integer, intent(in), optional :: openmp !! OpenMP constructs through OMPT, an SP_OPENMP_* (default SP_OPENMP_OFF)
    logical, intent(in), optional :: profile_io !! POSIX, stdio and MPI-IO calls as regions (default false)
    integer :: err

    err = sp_setup_config(profiling_activated, use_likwid, time_trace, flush_to_disk, &
                          buffer_limit, file_path, aggregate, sample_ms, profile_mpi, layout, reduce, &
                          nvtx, trace_max_mb, openmp, profile_io)
    call sp_keep_first(err, c_sp_mpi_set_comm_f(comm%MPI_VAL))
    call sp_status(err, "sp_setup", stat, errmsg)
  end subroutine sp_setup_f08
#endif

  !> Fills an `sp_config` from the defaults and the arguments present, and
  !> calls the C `sp_setup`. The path copy lives until `sp_setup` has
  !> copied it in turn.
  function sp_setup_config(profiling_activated, use_likwid, time_trace, flush_to_disk, &
                           buffer_limit, file_path, aggregate, sample_ms, profile_mpi, &
                           layout, reduce, nvtx, trace_max_mb, openmp, profile_io) result(err)
    logical, intent(in), optional :: profiling_activated, use_likwid, time_trace, flush_to_disk
    logical, intent(in), optional :: aggregate, profile_mpi, nvtx, profile_io
    integer, intent(in), optional :: buffer_limit, sample_ms, layout, reduce, trace_max_mb, openmp
    character(len=*), intent(in), optional :: file_path
    integer :: err
    type(sp_config_c) :: cfg
    character(kind=c_char), allocatable, target :: path(:)
    integer :: i, n

    call c_sp_config_init(cfg)
    if (present(profiling_activated)) cfg%profiling_activated = merge(1_c_int, 0_c_int, profiling_activated)
    if (present(use_likwid)) cfg%use_likwid = merge(1_c_int, 0_c_int, use_likwid)
    if (present(time_trace)) cfg%time_trace = merge(1_c_int, 0_c_int, time_trace)
    if (present(flush_to_disk)) cfg%flush_to_disk = merge(1_c_int, 0_c_int, flush_to_disk)
    if (present(buffer_limit)) cfg%buffer_limit = int(buffer_limit, c_int64_t)
    if (present(aggregate)) cfg%aggregate = merge(1_c_int, 0_c_int, aggregate)
    if (present(sample_ms)) cfg%sample_ms = int(sample_ms, c_int)
    if (present(profile_mpi)) cfg%profile_mpi = merge(1_c_int, 0_c_int, profile_mpi)
    if (present(layout)) cfg%layout = int(layout, c_int)
    if (present(reduce)) cfg%reduce = int(reduce, c_int)
    if (present(nvtx)) cfg%nvtx = merge(1_c_int, 0_c_int, nvtx)
    if (present(trace_max_mb)) cfg%trace_max_mb = int(trace_max_mb, c_int)
    if (present(openmp)) cfg%openmp = int(openmp, c_int)
    if (present(profile_io)) cfg%profile_io = merge(1_c_int, 0_c_int, profile_io)
    if (present(file_path)) then
      n = len_trim(file_path)
      allocate (path(n + 1))
      do i = 1, n
        path(i) = file_path(i:i)
      end do
      path(n + 1) = c_null_char
      cfg%file_path = c_loc(path)
    end if
    err = c_sp_setup(cfg)
  end function sp_setup_config

  !> Writes the profile and ends the session (with MPI: collectively; every
  !> rank of the communicator must call it). A second call, or one without
  !> setup, does nothing. Errors: `SP_EIO`, `SP_EHDF5`, `SP_EMPI`, `SP_EPATH`.
  subroutine sp_finalize(stat, errmsg)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_finalize(), "sp_finalize", stat, errmsg)
  end subroutine sp_finalize

  !> Profile mode: writes the aggregates recorded so far to `path` (with
  !> MPI collectively, like `sp_finalize`); recording goes on. Errors:
  !> `SP_EINVAL` (profile mode off), `SP_ENOTSETUP`, `SP_EIO`, `SP_EHDF5`, `SP_EMPI`.
  subroutine sp_report(path, stat, errmsg)
    character(len=*), intent(in) :: path !! file to write (trailing blanks ignored)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    character(kind=c_char), allocatable :: cpath(:)
    integer :: i, n

    n = len_trim(path)
    allocate (cpath(n + 1))
    do i = 1, n
      cpath(i) = path(i:i)
    end do
    cpath(n + 1) = c_null_char
    call sp_status(c_sp_report(cpath), "sp_report", stat, errmsg)
  end subroutine sp_report

  !> Profile mode: the aggregates start again from zero (a new window).
  subroutine sp_reset(stat, errmsg)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_reset(), "sp_reset", stat, errmsg)
  end subroutine sp_reset

  !> Trace windows: no call starts in the trace until `sp_trace_resume`;
  !> calls open now are kept whole, profile mode's aggregates go on. Per
  !> process, no MPI call. Errors: `SP_ENOTSETUP`.
  subroutine sp_trace_pause(stat, errmsg)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_trace_pause(), "sp_trace_pause", stat, errmsg)
  end subroutine sp_trace_pause

  !> Ends a pause of the trace (`sp_trace_pause`). Errors: `SP_ENOTSETUP`.
  subroutine sp_trace_resume(stat, errmsg)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_trace_resume(), "sp_trace_resume", stat, errmsg)
  end subroutine sp_trace_resume

  !> Profile mode: region `h`'s calls, total, min, max and exclusive ns in
  !> this process in the current window, summed over threads. No I/O.
  subroutine sp_region_stats(h, stats, stat, errmsg)
    integer, intent(in) :: h !! handle from `sp_region`
    type(sp_region_stats_t), intent(out) :: stats
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_region_stats(int(h, c_int), stats), "sp_region_stats", stat, errmsg)
  end subroutine sp_region_stats

  !> True between `sp_setup` and `sp_finalize` with profiling activated.
  function sp_is_active() result(active)
    logical :: active
    active = c_sp_is_active() /= 0
  end function sp_is_active

  ! ---- MPI communicator -------------------------------------------------

  !> `sp_mpi_set_comm` with an `integer` communicator (`use mpi`).
  subroutine sp_mpi_set_comm_int(comm, stat, errmsg)
    integer, intent(in) :: comm !! MPI communicator handle
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_mpi_set_comm_f(comm), "sp_mpi_set_comm", stat, errmsg)
  end subroutine sp_mpi_set_comm_int

#ifdef SP_FORTRAN_WITH_MPI
  !> `sp_mpi_set_comm` with a `type(MPI_Comm)` communicator (`use mpi_f08`).
  subroutine sp_mpi_set_comm_f08(comm, stat, errmsg)
    type(MPI_Comm), intent(in) :: comm !! MPI communicator
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    character(len=*), intent(out), optional :: errmsg !! text of the error, blank on success
    call sp_status(c_sp_mpi_set_comm_f(comm%MPI_VAL), "sp_mpi_set_comm", stat, errmsg)
  end subroutine sp_mpi_set_comm_f08
#endif

  ! ---- Errors and queries ------------------------------------------------

  !> Text for an `SP_E*` code ("success" for 0).
  function sp_strerror(code) result(text)
    integer, intent(in) :: code !! 0 or an `SP_E*` code
    character(len=:), allocatable :: text
    text = sp_c_string(c_sp_strerror(code))
  end function sp_strerror

  !> Name of an `SP_E*` code ("SP_EINVAL"; "SP_OK" for 0, "SP_UNKNOWN" otherwise).
  function sp_err_name(code) result(name)
    integer, intent(in) :: code !! 0 or an `SP_E*` code
    character(len=:), allocatable :: name
    name = sp_c_string(c_sp_err_name(code))
  end function sp_err_name

  !> Version of the library actually linked, "MAJOR.MINOR.PATCH".
  function sp_version_string() result(version)
    character(len=:), allocatable :: version
    version = sp_c_string(c_sp_version_string())
  end function sp_version_string

  !> How often misuse of `kind` (`SP_MISUSE_*`) happened in the current or
  !> last session.
  function sp_misuse_count(kind) result(n)
    integer, intent(in) :: kind !! one of the `SP_MISUSE_*` constants
    integer(int64) :: n
    n = c_sp_misuse_count(kind)
  end function sp_misuse_count

  ! ---- Helpers ------------------------------------------------------------

  !> Copies a NUL-terminated C string into a Fortran string.
  function sp_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n

    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function sp_c_string

  !> Keeps in `err` the first nonzero code of a sequence of calls.
  subroutine sp_keep_first(err, next)
    integer, intent(inout) :: err
    integer, intent(in) :: next
    if (err == SP_OK) err = next
  end subroutine sp_keep_first

  !> Hands `err` to `stat`/`errmsg` when present; otherwise reports a
  !> failure on `error_unit` and carries on (the library never stops the program).
  ! ---- Values per call ------------------------------------------------

  !> `call sp_call_set(key, "text")`.
  subroutine sp_call_set_str(key, value, stat)
    character(len=*), intent(in) :: key !! the key; trailing blanks ignored
    character(len=*), intent(in), target :: value !! UTF-8 text; trailing blanks dropped
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code (said once by the library)
    integer :: err
    err = c_sp_call_set_f(key, len(key, c_size_t), 1_c_int, c_loc(value), &
                          int(len_trim(value), c_size_t))
    if (present(stat)) stat = err
  end subroutine sp_call_set_str

  subroutine sp_call_set_i64(key, value, stat)
    character(len=*), intent(in) :: key
    integer(c_int64_t), intent(in) :: value
    integer, intent(out), optional :: stat
    integer(c_int64_t), target :: v
    integer :: err
    v = value
    err = c_sp_call_set_f(key, len(key, c_size_t), 2_c_int, c_loc(v), 8_c_size_t)
    if (present(stat)) stat = err
  end subroutine sp_call_set_i64

  subroutine sp_call_set_f64(key, value, stat)
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    real(c_double), target :: v
    integer :: err
    v = value
    err = c_sp_call_set_f(key, len(key, c_size_t), 3_c_int, c_loc(v), 8_c_size_t)
    if (present(stat)) stat = err
  end subroutine sp_call_set_f64

  !> `call sp_call_set(key, n)` with a default integer: stored as int64.
  subroutine sp_call_set_int32(key, value, stat)
    character(len=*), intent(in) :: key !! the key; trailing blanks ignored
    integer, intent(in) :: value !! stored as int64
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    call sp_call_set_i64(key, int(value, c_int64_t), stat)
  end subroutine sp_call_set_int32

  !> `call sp_call_set(key, n)` with an `integer(int64)`.
  subroutine sp_call_set_int64(key, value, stat)
    character(len=*), intent(in) :: key !! the key; trailing blanks ignored
    integer(int64), intent(in) :: value !! stored as int64
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    call sp_call_set_i64(key, int(value, c_int64_t), stat)
  end subroutine sp_call_set_int64

  !> `call sp_call_set(key, x)` with a default real: stored as float64.
  subroutine sp_call_set_real32(key, value, stat)
    character(len=*), intent(in) :: key !! the key; trailing blanks ignored
    real, intent(in) :: value !! stored as float64 (widened)
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    call sp_call_set_f64(key, real(value, c_double), stat)
  end subroutine sp_call_set_real32

  !> `call sp_call_set(key, x)` with a `real(real64)`.
  subroutine sp_call_set_real64(key, value, stat)
    character(len=*), intent(in) :: key !! the key; trailing blanks ignored
    real(real64), intent(in) :: value !! stored as float64
    integer, intent(out), optional :: stat !! 0 or an `SP_E*` code
    call sp_call_set_f64(key, real(value, c_double), stat)
  end subroutine sp_call_set_real64

  subroutine sp_status(err, where, stat, errmsg)
    integer, intent(in) :: err
    character(len=*), intent(in) :: where
    integer, intent(out), optional :: stat
    character(len=*), intent(out), optional :: errmsg

    if (present(errmsg)) then
      if (err == SP_OK) then
        errmsg = ""
      else
        errmsg = sp_strerror(err)
      end if
    end if
    if (present(stat)) then
      stat = err
    else if (err /= SP_OK) then
      write (error_unit, "(5a)") "scope-profiler: error: ", where, ": ", sp_strerror(err), &
        " (" // sp_err_name(err) // ")"
    end if
  end subroutine sp_status

end module scope_profiler
