/* mpi_glue.c - the MPI hooks: the communicator finalize writes over
 * (sp_mpi_set_comm, our duplicate of MPI_COMM_WORLD), and writing the
 * profile when the program reaches MPI_Finalize without sp_finalize.
 * Finalize's MPI operations (par.h) are in mpi_par.c.
 *
 * The MPI_Finalize part uses two hooks, whichever comes first: PMPI interposition
 * of MPI_Finalize (C) and of Open MPI's Fortran entry points, and a delete
 * callback on MPI_COMM_SELF, which MPI runs at the start of MPI_Finalize
 * whatever the link order (the standard's hook for libraries). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_offset.h"
#include "mpi_arrival.h"
#include "mpi_glue.h"
#include "par.h"
#include "scope_profiler_mpi.h"

/* Our duplicate of the communicator given to sp_mpi_set_comm: the program
 * may free its own at any time. Freed when another is set and before
 * MPI_Finalize. */
static int sp_have_user_comm;
static MPI_Comm sp_user_comm = MPI_COMM_NULL;
/* The library's own copy of MPI_COMM_WORLD, taken inside MPI_Init (a
 * collective anyway), for finalize's bounded wait (mpi_arrival.c): none
 * when MPI was initialised without going through the hooks below. */
static MPI_Comm sp_world_own = MPI_COMM_NULL;
static int sp_self_hook_set;
/* A duplicate of the base communicator for the next sp_finalize or
 * sp_report (mpi_par.c), made where the ranks are together anyway
 * (MPI_Init, sp_mpi_set_comm) and handed back after a finalize that all
 * ranks agreed succeeded: MPI_Comm_dup inside finalize took 1-6 ms of 16
 * oversubscribed ranks' 30 on a loaded machine (docs/performance.md, "the
 * columnar finalize's rounds"). sp_fin_uses: the operations it has served. */
static MPI_Comm sp_fin_spare = MPI_COMM_NULL;
static unsigned sp_fin_uses;
/* "<job>:<world rank>": this process is world rank <world rank> of the MPI
 * job <job> (rank 0's random number at MPI_Init, the same on every rank);
 * "" before MPI_Init or without it. */
static char sp_writer[SP_MPI_WRITER_MAX];
static pthread_t sp_setup_thread;

int sp__mpi_usable(void) {
  if (sp__state.forked) return 0; /* a forked child of a rank is not one */
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

int sp__par_usable(void) {
  int size = 1;
  return sp__mpi_usable() && MPI_Comm_size(sp__mpi_base_comm(), &size) == MPI_SUCCESS && size > 1;
}

static void sp_user_comm_release(void) {
  if (sp_have_user_comm) MPI_Comm_free(&sp_user_comm);
  sp_have_user_comm = 0;
  sp_user_comm = MPI_COMM_NULL;
}

static void sp_world_own_release(void) {
  if (sp_world_own != MPI_COMM_NULL) MPI_Comm_free(&sp_world_own);
}

static void sp_fin_spare_release(void) {
  if (sp_fin_spare != MPI_COMM_NULL) MPI_Comm_free(&sp_fin_spare);
  sp_fin_uses = 0;
}

/* A new spare duplicate of comm (collective over it). */
static void sp_fin_spare_make(MPI_Comm comm) {
  sp_fin_spare_release();
  if (PMPI_Comm_dup(comm, &sp_fin_spare) == MPI_SUCCESS)
    MPI_Comm_set_errhandler(sp_fin_spare, MPI_ERRORS_RETURN);
  else
    sp_fin_spare = MPI_COMM_NULL;
}

MPI_Comm sp__mpi_fin_comm_take(unsigned *uses) {
  MPI_Comm c = sp_fin_spare;
  *uses = sp_fin_uses;
  sp_fin_spare = MPI_COMM_NULL;
  sp_fin_uses = 0;
  return c;
}

void sp__mpi_fin_comm_give_back(MPI_Comm c, unsigned uses) {
  if (sp_fin_spare != MPI_COMM_NULL || !sp__mpi_usable()) { /* cannot happen; kept simple */
    MPI_Comm_free(&c);
    return;
  }
  sp_fin_spare = c;
  sp_fin_uses = uses;
}

static void sp_before_mpi_finalize(void) {
  if (sp__state.session) {
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "MPI_Finalize reached without sp_finalize: writing the profile now");
    if (sp__up.mpi_finalize) (void)sp__up.mpi_finalize(); /* sp_finalize */
  }
  sp_user_comm_release();
  sp_world_own_release();
  sp_fin_spare_release();
}

static int sp_self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  sp_before_mpi_finalize();
  return MPI_SUCCESS;
}

/* A delete callback on MPI_COMM_SELF, which MPI runs at the start of
 * MPI_Finalize whatever the link order. */
static void sp_hook_mpi_finalize(void) {
  if (sp_self_hook_set) return;
  /* HDF5 hooks MPI_COMM_SELF too; initialised first, its callback runs
   * after ours (callbacks run in reverse order of setting). */
  H5open();
  int key;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, sp_self_delete, &key, NULL) == MPI_SUCCESS &&
      MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS)
    sp_self_hook_set = 1;
}

static void sp_clock_at_start(void);

int sp_mpi_set_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "sp_mpi_set_comm(MPI_COMM_NULL): the communicator is unchanged");
    return SP_EINVAL;
  }
  if (!sp__mpi_usable()) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "sp_mpi_set_comm before MPI_Init or after MPI_Finalize: the "
            "communicator is unchanged");
    return SP_EMPI;
  }
  MPI_Comm dup;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "sp_mpi_set_comm: MPI_Comm_dup failed; the communicator is "
            "unchanged");
    return SP_EMPI;
  }
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  sp_user_comm_release();
  sp_user_comm = dup;
  sp_have_user_comm = 1;
  sp_fin_spare_make(dup);
  sp_hook_mpi_finalize(); /* to free the duplicate before MPI_Finalize */
  /* Rank 0 of this communicator is the clock reference from now on: a
   * setup measurement against another one no longer counts. Measured again
   * here, where all its ranks are together anyway (the duplicate). */
  pthread_mutex_lock(&sp__state.lock);
  memset(&sp__state.clock_off[0], 0, sizeof sp__state.clock_off[0]);
  pthread_mutex_unlock(&sp__state.lock);
  sp_clock_at_start();
  return 0;
}

int sp_mpi_set_comm_f(MPI_Fint comm) { return sp_mpi_set_comm(MPI_Comm_f2c(comm)); }

/* Learns rank and size, and hooks MPI_Finalize, once MPI is up. Only from
 * the thread that called sp_setup (MPI may be initialised FUNNELED). */
static void sp_mpi_learn(void) {
  if (!pthread_equal(pthread_self(), sp_setup_thread) || !sp__mpi_usable()) return;
  MPI_Comm c = sp_have_user_comm ? sp_user_comm : MPI_COMM_WORLD;
  MPI_Comm_rank(c, &sp__state.rank);
  MPI_Comm_size(c, &sp__state.size);
  sp_hook_mpi_finalize();
}

/* The first clock measurement (clock_offset.c), once MPI is usable after
 * sp_setup: at sp_setup, or inside MPI_Init when that comes later. On the
 * library's own communicator only (none: the finalize measurement alone
 * aligns). Bounded by SP_CLOCK_START_TIMEOUT_S (at most the finalize
 * timeout): a rank that calls sp_setup much later than the others only
 * costs this measurement, never the program's progress for longer. */
enum { SP_CLOCK_START_TIMEOUT_S = 10 };
static MPI_Comm sp_clock_comm = MPI_COMM_NULL; /* of the last measurement at start */
static void sp_clock_at_start(void) {
  sp_state_t *st = &sp__state;
  if (!st->session || st->clock_off[0].valid || !pthread_equal(pthread_self(), sp_setup_thread) ||
      !sp__mpi_usable())
    return;
  MPI_Comm c = sp_have_user_comm ? sp_user_comm : sp_world_own;
  if (c == MPI_COMM_NULL) return;
  int64_t timeout = st->set.finalize_timeout < SP_CLOCK_START_TIMEOUT_S ? st->set.finalize_timeout
                                                                        : SP_CLOCK_START_TIMEOUT_S;
  sp_clock_offset_t o;
  static unsigned measurements; /* on this communicator: sp_mpi_set_comm starts anew */
  if (c != sp_clock_comm) measurements = 0;
  sp_clock_comm = c;
  int rc = sp__clock_offset_measure(c, measurements++, timeout, &o);
  if (!o.valid)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "clock offset to rank 0 not measured at setup (%s within %lld s); this rank's "
            "timeline is aligned with the finalize measurement alone",
            sp_strerror(rc), (long long)timeout);
  else if (rc != 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "not every rank took part in the clock measurement at setup within %lld s (%s); "
            "those ranks' timelines are aligned with the finalize measurement alone",
            (long long)timeout, sp_strerror(rc));
  if (!o.valid) return;
  pthread_mutex_lock(&st->lock);
  st->clock_off[0] = o;
  pthread_mutex_unlock(&st->lock);
}

void sp__mpi_note_setup(void) {
  sp_setup_thread = pthread_self();
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "sp_setup after MPI_Finalize: every process now writes '%s' on its own; give each "
            "process its own file_path (SCOPE_PROFILER_FILE)",
            sp__state.file_path);
  sp_mpi_learn();
  sp_clock_at_start();
}

const char *sp__mpi_writer(void) { return sp_writer; }

int sp__mpi_rank_if_known(void) {
  if (sp__state.rank < 0) sp_mpi_learn();
  return sp__state.rank;
}

/* ---- PMPI interposition ----------------------------------------------- */

/* Takes the library's own copy of MPI_COMM_WORLD, while all ranks are in
 * MPI_Init together. */
static void sp_after_mpi_init(int rc) {
  if (rc != MPI_SUCCESS) return;
  if (sp_world_own == MPI_COMM_NULL &&
      PMPI_Comm_dup(MPI_COMM_WORLD, &sp_world_own) == MPI_SUCCESS) {
    MPI_Comm_set_errhandler(sp_world_own, MPI_ERRORS_RETURN);
    if (!sp_have_user_comm) sp_fin_spare_make(MPI_COMM_WORLD);
    sp_hook_mpi_finalize(); /* to free it before MPI_Finalize */
    /* The job's identity, rank 0's random number, for the files it
     * publishes: two writers of one job never replace each other's
     * (out_temp.c). */
    int wrank = 0;
    uint64_t job = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0) job = sp__random64();
    if (PMPI_Bcast(&job, 1, MPI_UINT64_T, 0, sp_world_own) == MPI_SUCCESS && job != 0)
      snprintf(sp_writer, sizeof sp_writer, "%016llx:%d", (unsigned long long)job, wrank);
  }
  if (sp__state.session) {
    sp_mpi_learn();
    sp_clock_at_start();
    /* The rank is known now: its spill file from here (sp__spill_head_now). */
    if (sp__up.mpi_rank_known) sp__up.mpi_rank_known();
  }
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  sp_after_mpi_init(rc);
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  sp_after_mpi_init(rc);
  return rc;
}

int MPI_Finalize(void) {
  sp_before_mpi_finalize();
  return PMPI_Finalize();
}

/* Open MPI's Fortran MPI_INIT calls PMPI_Init directly, so the C hooks
 * above never see a Fortran program start MPI: without these, such a
 * program had neither the library's copy of MPI_COMM_WORLD (finalize's
 * bounded wait) nor the clock measurement at setup. They do what Open MPI's
 * own entry points do (ompi/mpi/fortran/mpif-h/init_f.c), then ours. */
#define SP_FORTRAN_INIT(fn)           \
  SP_EXPORT void fn(MPI_Fint *ierr);  \
  void fn(MPI_Fint *ierr) {           \
    int argc = 0;                     \
    char **argv = NULL;               \
    int rc = PMPI_Init(&argc, &argv); \
    sp_after_mpi_init(rc);            \
    if (ierr) *ierr = (MPI_Fint)rc;   \
  }
SP_FORTRAN_INIT(mpi_init_)
SP_FORTRAN_INIT(mpi_init__)
SP_FORTRAN_INIT(mpi_init)
SP_FORTRAN_INIT(MPI_INIT)
SP_FORTRAN_INIT(mpi_init_f08_)

#define SP_FORTRAN_INIT_THREAD(fn)                                                 \
  SP_EXPORT void fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);       \
  void fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {                \
    int argc = 0, prov = 0;                                                        \
    char **argv = NULL;                                                            \
    int rc = PMPI_Init_thread(&argc, &argv, required ? (int)*required : 0, &prov); \
    sp_after_mpi_init(rc);                                                         \
    if (provided) *provided = (MPI_Fint)prov;                                      \
    if (ierr) *ierr = (MPI_Fint)rc;                                                \
  }
SP_FORTRAN_INIT_THREAD(mpi_init_thread_)
SP_FORTRAN_INIT_THREAD(mpi_init_thread__)
SP_FORTRAN_INIT_THREAD(mpi_init_thread)
SP_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
SP_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)

/* Open MPI's Fortran bindings call PMPI_Finalize directly, so the C hook
 * above never sees them: these replace their entry points. */
#define SP_FORTRAN_FINALIZE(fn)      \
  SP_EXPORT void fn(MPI_Fint *ierr); \
  void fn(MPI_Fint *ierr) {          \
    sp_before_mpi_finalize();        \
    int rc = PMPI_Finalize();        \
    if (ierr) *ierr = (MPI_Fint)rc;  \
  }
SP_FORTRAN_FINALIZE(mpi_finalize_)
SP_FORTRAN_FINALIZE(mpi_finalize__)
SP_FORTRAN_FINALIZE(mpi_finalize)
SP_FORTRAN_FINALIZE(MPI_FINALIZE)
SP_FORTRAN_FINALIZE(mpi_finalize_f08_)

MPI_Comm sp__mpi_base_comm(void) { return sp_have_user_comm ? sp_user_comm : MPI_COMM_WORLD; }

MPI_Comm sp__mpi_own_comm(void) { return sp_have_user_comm ? sp_user_comm : sp_world_own; }
