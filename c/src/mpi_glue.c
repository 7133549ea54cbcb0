/* mpi_glue.c - MPI for finalize: communicator, gathering plans, collective
 * raw writes, and writing the profile when the program reaches
 * MPI_Finalize without sp_finalize.
 *
 * That last part uses two hooks, whichever comes first: PMPI interposition
 * of MPI_Finalize (C) and of Open MPI's Fortran entry points, and a delete
 * callback on MPI_COMM_SELF, which MPI runs at the start of MPI_Finalize
 * whatever the link order (the standard's hook for libraries). */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock_offset.h"
#include "layout.h"
#include "mpi_arrival.h"
#include "mpi_crowding.h"
#include "mpi_polite.h"
#include "par.h"
#include "scope_profiler_mpi.h"

typedef struct sp_mpi_impl {
  MPI_Comm comm;
  MPI_File fh;
} sp_mpi_impl_t;

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
static pthread_t sp_setup_thread;

static int sp_mpi_usable(void) {
  if (sp__state.forked) return 0; /* a forked child of a rank is not one */
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

static void sp_user_comm_release(void) {
  if (sp_have_user_comm) MPI_Comm_free(&sp_user_comm);
  sp_have_user_comm = 0;
  sp_user_comm = MPI_COMM_NULL;
}

static void sp_world_own_release(void) {
  if (sp_world_own != MPI_COMM_NULL) MPI_Comm_free(&sp_world_own);
}

static void sp_before_mpi_finalize(void) {
  if (sp__state.session) {
    sp__log(2, SP_LOG_ALWAYS, "MPI_Finalize reached without sp_finalize: writing the profile now");
    sp_finalize();
  }
  sp_user_comm_release();
  sp_world_own_release();
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
    sp__log(0, SP_LOG_ALWAYS, "sp_mpi_set_comm(MPI_COMM_NULL): the communicator is unchanged");
    return SP_EINVAL;
  }
  if (!sp_mpi_usable()) {
    sp__log(0, SP_LOG_ALWAYS, "sp_mpi_set_comm before MPI_Init or after MPI_Finalize: the "
                              "communicator is unchanged");
    return SP_EMPI;
  }
  MPI_Comm dup;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
    sp__log(0, SP_LOG_ALWAYS, "sp_mpi_set_comm: MPI_Comm_dup failed; the communicator is "
                              "unchanged");
    return SP_EMPI;
  }
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  sp_user_comm_release();
  sp_user_comm = dup;
  sp_have_user_comm = 1;
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
  if (!pthread_equal(pthread_self(), sp_setup_thread) || !sp_mpi_usable()) return;
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
static void sp_clock_at_start(void) {
  sp_state_t *st = &sp__state;
  if (!st->session || st->clock_off[0].valid || !pthread_equal(pthread_self(), sp_setup_thread) ||
      !sp_mpi_usable())
    return;
  MPI_Comm c = sp_have_user_comm ? sp_user_comm : sp_world_own;
  if (c == MPI_COMM_NULL) return;
  int64_t timeout = st->finalize_timeout < SP_CLOCK_START_TIMEOUT_S ? st->finalize_timeout
                                                                    : SP_CLOCK_START_TIMEOUT_S;
  sp_clock_offset_t o;
  int rc = sp__clock_offset_measure(c, timeout, &o);
  if (!o.valid)
    sp__log(1, SP_LOG_ALWAYS,
            "clock offset to rank 0 not measured at setup (%s within %lld s); this rank's "
            "timeline is aligned with the finalize measurement alone",
            sp_strerror(rc), (long long)timeout);
  else if (rc != 0)
    sp__log(1, SP_LOG_ALWAYS,
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
    sp__log(1, SP_LOG_ALWAYS,
            "sp_setup after MPI_Finalize: every process now writes '%s' on its own; give each "
            "process its own file_path (SCOPE_PROFILER_FILE)", sp__state.file_path);
  sp_mpi_learn();
  sp_clock_at_start();
}

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
    sp_hook_mpi_finalize(); /* to free it before MPI_Finalize */
  }
  if (sp__state.session) {
    sp_mpi_learn();
    sp_clock_at_start();
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

/* Open MPI's Fortran bindings call PMPI_Finalize directly, so the C hook
 * above never sees them: these replace their entry points. */
#define SP_FORTRAN_FINALIZE(fn)                                              \
  SP_EXPORT void fn(MPI_Fint *ierr);                                         \
  void fn(MPI_Fint *ierr) {                                                  \
    sp_before_mpi_finalize();                                                \
    int rc = PMPI_Finalize();                                                \
    if (ierr) *ierr = (MPI_Fint)rc;                                          \
  }
SP_FORTRAN_FINALIZE(mpi_finalize_)
SP_FORTRAN_FINALIZE(mpi_finalize__)
SP_FORTRAN_FINALIZE(mpi_finalize)
SP_FORTRAN_FINALIZE(MPI_FINALIZE)
SP_FORTRAN_FINALIZE(mpi_finalize_f08_)

/* ---- finalize's collective operations ---------------------------------- */

int sp__par_begin(sp_par_t *p) {
  memset(p, 0, sizeof *p);
  p->rank = 0;
  p->size = 1;
  p->ranks_per_cpu = 1;
  if (!sp_mpi_usable()) {
    if (sp__state.size > 1) {
      sp__log(0, SP_LOG_ALWAYS,
              "sp_finalize after MPI_Finalize: the ranks can no longer write one file together");
      return SP_EMPI;
    }
    return 0;
  }
  sp_mpi_impl_t *m = calloc(1, sizeof *m);
  if (!m) return SP_ENOMEM;
  MPI_Comm base = sp_have_user_comm ? sp_user_comm : MPI_COMM_WORLD;
  /* A bounded wait for all ranks first: the duplicate below would wait
   * forever for a rank that never comes. */
  MPI_Comm own = sp_have_user_comm ? sp_user_comm : sp_world_own;
  int arrived = own != MPI_COMM_NULL ? sp__mpi_arrival(own, sp__state.finalize_timeout) : 0;
  if (arrived != 0) {
    free(m);
    return arrived;
  }
  if (MPI_Comm_dup(base, &m->comm) != MPI_SUCCESS) {
    free(m);
    return SP_EMPI;
  }
  /* A failed call returns its error, and finalize its status, instead of
   * aborting the program. */
  MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(m->comm, &p->rank);
  MPI_Comm_size(m->comm, &p->size);
  sp__state.rank = p->rank;
  sp__state.size = p->size;
  m->fh = MPI_FILE_NULL;
  p->ranks_per_cpu = sp__mpi_ranks_per_cpu(m->comm, p->rank, p->size);
  sp__mpi_polite_set_crowding(p->ranks_per_cpu);
  p->impl = m;
  p->active = 1;
  return 0;
}

int sp__par_clock_offset(sp_par_t *p, sp_clock_offset_t *out) {
  if (!p->active) {
    *out = (sp_clock_offset_t){0, sp__monotonic_ns(), 0, 1, 0};
    return 0;
  }
  sp_mpi_impl_t *m = p->impl;
  return sp__clock_offset_measure(m->comm, sp__state.finalize_timeout, out);
}

void sp__par_end(sp_par_t *p) {
  sp_mpi_impl_t *m = p->impl;
  if (m) {
    if (m->fh != MPI_FILE_NULL) MPI_File_close(&m->fh);
    MPI_Comm_free(&m->comm);
    free(m);
  }
  p->impl = NULL;
}

/* Gathers every rank's blob on every rank (to_all) or on rank 0 only; the
 * other ranks then get an empty *all (and offs unless ranks share cores). */
static int sp_gather(sp_par_t *p, const char *blob, int64_t len, int to_all, char **all,
                     int64_t **offs) {
  sp_mpi_impl_t *m = p->impl;
  if (!to_all && p->ranks_per_cpu > 1) {
    int err = sp__mpi_polite_gather(m->comm, p->rank, p->size, blob, (int)len, all, offs);
    return err == MPI_SUCCESS ? 0 : err == MPI_ERR_NO_MEM ? SP_ENOMEM : SP_EMPI;
  }
  int mylen = (int)len;
  int *lens = calloc((size_t)p->size, sizeof *lens);
  int *displs = calloc((size_t)p->size, sizeof *displs);
  *offs = calloc((size_t)(p->size + 1), sizeof **offs);
  int ok = lens && displs && *offs;
  int rc = ok ? 0 : SP_ENOMEM;
  /* Collectives are entered even after a local failure, with what there is. */
  int junk[1];
  if (MPI_Allgather(&mylen, 1, MPI_INT, ok ? lens : junk, ok ? 1 : 0, MPI_INT, m->comm) !=
      MPI_SUCCESS)
    rc = SP_EMPI;
  int64_t total = 0;
  for (int r = 0; ok && r < p->size; r++) {
    displs[r] = (int)total;
    (*offs)[r] = total;
    total += lens[r];
  }
  if (ok) (*offs)[p->size] = total;
  int receives = to_all || p->rank == 0;
  *all = malloc((size_t)(receives && total ? total : 1));
  if (rc == 0 && !*all) rc = SP_ENOMEM;
  int mpi_rc =
      to_all ? MPI_Allgatherv(blob, mylen, MPI_BYTE, *all, lens, displs, MPI_BYTE, m->comm)
             : MPI_Gatherv(blob, mylen, MPI_BYTE, *all, lens, displs, MPI_BYTE, 0, m->comm);
  if (mpi_rc != MPI_SUCCESS && rc == 0) rc = SP_EMPI;
  free(lens);
  free(displs);
  return rc;
}

int sp__par_allgather(sp_par_t *p, const char *blob, int64_t len, char **all, int64_t **offs) {
  return sp_gather(p, blob, len, 1, all, offs);
}

int sp__par_gather_root(sp_par_t *p, const char *blob, int64_t len, char **all, int64_t **offs) {
  return sp_gather(p, blob, len, 0, all, offs);
}

hid_t sp__par_fapl(sp_par_t *p) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (p->active) {
    sp_mpi_impl_t *m = p->impl;
    H5Pset_fapl_mpio(fapl, m->comm, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
  }
  return fapl;
}

/* Rank 0 sends each rank its offsets with point-to-point messages, so that
 * ranks waiting for them can sleep (mpi_polite.c). All sends are posted at
 * once: an offsets message larger than the eager limit goes only when its
 * rank wakes up, and one send at a time would add those waits up. Without
 * memory for the requests, one at a time it is. */
static int sp_scatter_politely(sp_par_t *p, const sp_rank_plan_t *plans,
                               sp_region_offsets_t *const *by_rank, sp_region_offsets_t *mine,
                               int32_t nmine) {
  enum { TAG_OFFSETS = 7310 };
  sp_mpi_impl_t *m = p->impl;
  const int per = (int)(sizeof(sp_region_offsets_t) / sizeof(int64_t));
  int err = MPI_SUCCESS;
  if (p->rank != 0) {
    MPI_Request r;
    err = MPI_Irecv(mine, nmine * per, MPI_INT64_T, 0, TAG_OFFSETS, m->comm, &r);
    if (err == MPI_SUCCESS) err = sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE);
    return err == MPI_SUCCESS ? 0 : SP_EMPI;
  }
  MPI_Request *reqs = malloc((size_t)p->size * sizeof *reqs);
  for (int r = 1; r < p->size && err == MPI_SUCCESS; r++) {
    int count = plans[r].nregions * per;
    if (reqs)
      err = MPI_Isend(by_rank[r], count, MPI_INT64_T, r, TAG_OFFSETS, m->comm, &reqs[r - 1]);
    else
      err = sp__mpi_polite_send(m->comm, by_rank[r], count, MPI_INT64_T, r, TAG_OFFSETS);
  }
  if (reqs && err == MPI_SUCCESS)
    err = sp__mpi_polite_waitall(p->size - 1, reqs, MPI_STATUSES_IGNORE);
  free(reqs);
  return err == MPI_SUCCESS ? 0 : SP_EMPI;
}

int sp__par_scatter_offsets(sp_par_t *p, const sp_rank_plan_t *plans,
                            sp_region_offsets_t *const *by_rank, sp_region_offsets_t *mine,
                            int32_t nmine) {
  sp_mpi_impl_t *m = p->impl;
  const int per = (int)(sizeof(sp_region_offsets_t) / sizeof(int64_t));
  if (p->ranks_per_cpu > 1) return sp_scatter_politely(p, plans, by_rank, mine, nmine);
  int *counts = NULL, *displs = NULL;
  int64_t *all = NULL;
  int rc = 0;
  if (p->rank == 0) {
    counts = malloc((size_t)p->size * sizeof *counts);
    displs = malloc((size_t)p->size * sizeof *displs);
    int64_t total = 0;
    for (int r = 0; counts && displs && r < p->size; r++) {
      counts[r] = plans[r].nregions * per;
      displs[r] = (int)total;
      total += counts[r];
    }
    all = malloc((size_t)(total + 1) * sizeof *all);
    for (int r = 0; all && counts && displs && r < p->size; r++)
      if (by_rank[r]) memcpy(all + displs[r], by_rank[r], (size_t)counts[r] * sizeof *all);
    if (!counts || !displs || !all) rc = SP_ENOMEM;
  }
  if (MPI_Scatterv(all, counts, displs, MPI_INT64_T, mine, nmine * per, MPI_INT64_T, 0, m->comm) !=
      MPI_SUCCESS)
    rc = SP_EMPI;
  free(counts);
  free(displs);
  free(all);
  return rc;
}

int sp__par_raw_open(sp_par_t *p, const char *path) {
  sp_mpi_impl_t *m = p->impl;
  int rc = MPI_File_open(m->comm, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &m->fh);
  return rc == MPI_SUCCESS ? 0 : SP_EIO;
}

int sp__par_raw_close(sp_par_t *p) {
  sp_mpi_impl_t *m = p->impl;
  /* Ranks done early wait here (sleeping where ranks share cores) rather
   * than spinning inside the collective close while others still write. */
  sp__par_barrier(p);
  int rc = MPI_File_close(&m->fh);
  m->fh = MPI_FILE_NULL;
  return rc == MPI_SUCCESS ? 0 : SP_EIO;
}

static int sp_block_cmp(const void *a, const void *b) {
  const sp_block_t *x = a, *y = b;
  return (x->file_off > y->file_off) - (x->file_off < y->file_off);
}

int sp__par_raw_round(sp_par_t *p, sp_block_t *blocks, int n, const char *buf, int active,
                      int *any_active) {
  sp_mpi_impl_t *m = p->impl;
  int any = 0;
  MPI_Allreduce(&active, &any, 1, MPI_INT, MPI_MAX, m->comm);
  *any_active = any;
  if (!any) return 0;
  if (!active) n = 0;
  int rc = 0;
  MPI_Status status;
  if (n == 0) {
    MPI_File_set_view(m->fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    rc = MPI_File_write_all(m->fh, NULL, 0, MPI_BYTE, &status);
    return rc == MPI_SUCCESS ? 0 : SP_EIO;
  }
  /* File views need non-decreasing displacements. */
  qsort(blocks, (size_t)n, sizeof *blocks, sp_block_cmp);
  int *lens = malloc((size_t)n * sizeof *lens);
  MPI_Aint *fdisp = malloc((size_t)n * sizeof *fdisp);
  MPI_Aint *mdisp = malloc((size_t)n * sizeof *mdisp);
  MPI_Datatype ftype = MPI_DATATYPE_NULL, mtype = MPI_DATATYPE_NULL;
  if (lens && fdisp && mdisp) {
    for (int i = 0; i < n; i++) {
      lens[i] = (int)blocks[i].len;
      fdisp[i] = (MPI_Aint)blocks[i].file_off;
      mdisp[i] = (MPI_Aint)blocks[i].mem_off;
    }
    MPI_Type_create_hindexed(n, lens, fdisp, MPI_BYTE, &ftype);
    MPI_Type_create_hindexed(n, lens, mdisp, MPI_BYTE, &mtype);
    MPI_Type_commit(&ftype);
    MPI_Type_commit(&mtype);
    MPI_File_set_view(m->fh, 0, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    int written = 0;
    rc = MPI_File_write_all(m->fh, buf, 1, mtype, &status) == MPI_SUCCESS &&
                 MPI_Get_count(&status, mtype, &written) == MPI_SUCCESS && written == 1
             ? 0
             : SP_EIO;
    MPI_Type_free(&ftype);
    MPI_Type_free(&mtype);
  } else {
    /* Still take part in the collective, writing nothing. */
    MPI_File_set_view(m->fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_write_all(m->fh, NULL, 0, MPI_BYTE, &status);
    rc = SP_ENOMEM;
  }
  free(lens);
  free(fdisp);
  free(mdisp);
  return rc;
}

/* The count written is checked too: Open MPI 4.1's OMPIO returns
 * MPI_SUCCESS for a write that failed with ENOSPC (count 0), and finalize
 * then published a file without the data. (Its collective writes report
 * the full count even then: there only the room reserved at the layout
 * protects, README "How finalize writes".) */
int sp__par_raw_write_at(sp_par_t *p, const sp_block_t *blocks, int n, const char *buf) {
  sp_mpi_impl_t *m = p->impl;
  MPI_Status status;
  for (int i = 0; i < n; i++) {
    int written = 0;
    if (MPI_File_write_at(m->fh, (MPI_Offset)blocks[i].file_off, buf + blocks[i].mem_off,
                          (int)blocks[i].len, MPI_BYTE, &status) != MPI_SUCCESS ||
        MPI_Get_count(&status, MPI_BYTE, &written) != MPI_SUCCESS ||
        written != (int)blocks[i].len)
      return SP_EIO;
  }
  return 0;
}

/* Where ranks share cores, waiting ranks sleep (mpi_polite.c). */
int sp__par_agree(sp_par_t *p, int rc) {
  if (!p->active) return rc;
  sp_mpi_impl_t *m = p->impl;
  int worst = rc;
  int err = p->ranks_per_cpu > 1 ? sp__mpi_polite_min(m->comm, p->rank, p->size, rc, &worst)
                                 : MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, m->comm);
  return err == MPI_SUCCESS ? worst : SP_EMPI;
}

void sp__par_barrier(sp_par_t *p) { (void)sp__par_agree(p, 0); }
