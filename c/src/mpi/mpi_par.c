/* mpi_par.c - finalize's MPI operations, the MPI implementation of par.h:
 * the communicator of one finalize, gathering plans, scattering offsets,
 * collective raw writes and agreements (mpi_stub.c is the serial one).
 * Which communicator to use comes from the hooks in mpi_glue.c. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock_offset.h"
#include "layout.h"
#include "mpi_arrival.h"
#include "mpi_crowding.h"
#include "mpi_glue.h"
#include "mpi_polite.h"
#include "par.h"

typedef struct sp_mpi_impl {
  MPI_Comm comm;
  unsigned uses; /* operations comm served before this one (the spare, mpi_glue.h) */
  MPI_File fh;
  int gathers; /* polite gathers so far: each its own tag (mpi_polite.h) */
  /* Rank 0's sends of a broadcast left to complete later (sp_send_all_late):
   * the requests and the blob they send, which is freed once they have. */
  MPI_Request *late;
  int nlate;
  char *late_blob;
} sp_mpi_impl_t;

/* The polite gathers' tags: SP_TAG_GATHER + (number % SP_TAG_GATHERS). */
enum { SP_TAG_GATHER = 7400, SP_TAG_GATHERS = 1000 };

/* ---- finalize's collective operations ---------------------------------- */

__thread int sp__mpi_own_calls;

/* sp_report/sp_finalize calls begun in this session: the sequence number
 * of their arrival message (mpi_arrival.c). */
static int sp_par_ops;

void sp__par_session_begin(void) { sp_par_ops = 0; }

int sp__par_begin(sp_par_t *p, sp_par_op_t op) {
  memset(p, 0, sizeof *p);
  sp__mpi_own_calls = 1; /* until sp__par_end: our MPI calls are not the program's */
  p->rank = 0;
  p->size = 1;
  p->ranks_per_cpu = 1;
  p->any_active = -1;
  if (!sp__mpi_usable()) {
    if (sp__state.size > 1) {
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
              "sp_finalize after MPI_Finalize: the ranks can no longer write one file together");
      return SP_EMPI;
    }
    return 0;
  }
  sp_mpi_impl_t *m = calloc(1, sizeof *m);
  if (!m) return SP_ENOMEM;
  MPI_Comm base = sp__mpi_base_comm();
  /* Taken by every rank that begins, whether it arrives or not, so that
   * the ranks hold the spare alike afterwards. */
  MPI_Comm spare = sp__mpi_fin_comm_take(&m->uses);
  /* A bounded wait for all ranks first: the duplicate below would wait
   * forever for a rank that never comes. */
  MPI_Comm own = sp__mpi_own_comm();
  const int seq = ++sp_par_ops;
  sp_arrival_t told = {.ranks_per_cpu = 0, .any_active = -1}; /* unknown without it */
  int arrived = own != MPI_COMM_NULL ? sp__mpi_arrival(own, sp__state.set.finalize_timeout, op, seq,
                                                       sp__state.cfg.profiling_activated, &told)
                                     : 0;
  if (arrived != 0) { /* no collective ran on the spare: still good */
    if (spare != MPI_COMM_NULL) sp__mpi_fin_comm_give_back(spare, m->uses);
    free(m);
    return arrived;
  }
  m->comm = spare;
  if (spare == MPI_COMM_NULL && MPI_Comm_dup(base, &m->comm) != MPI_SUCCESS) {
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
  p->ranks_per_cpu = told.ranks_per_cpu > 0 ? told.ranks_per_cpu
                                            : sp__mpi_ranks_per_cpu(m->comm, p->rank, p->size);
  p->any_active = told.any_active; /* -1 without the arrival */
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
  return sp__clock_offset_measure(m->comm, m->uses, sp__state.set.finalize_timeout, out);
}

int sp__par_late_finish(sp_par_t *p) {
  sp_mpi_impl_t *m = p->impl;
  if (!m || !m->late) return 0;
  int err =
      m->nlate > 0 ? sp__mpi_polite_waitall(m->nlate, m->late, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
  free(m->late);
  free(m->late_blob);
  m->late = NULL;
  m->late_blob = NULL;
  m->nlate = 0;
  return err == MPI_SUCCESS ? 0 : SP_EMPI;
}

void sp__par_end(sp_par_t *p, int keep) {
  sp_mpi_impl_t *m = p->impl;
  if (m) {
    /* Every rank takes rank 0's blob whatever its status (the broadcast
     * is collective): this wait is the one the broadcast itself made before
     * its sends were left to complete later, moved. */
    sp__par_late_finish(p);
    if (m->fh != MPI_FILE_NULL) MPI_File_close(&m->fh);
    if (keep)
      sp__mpi_fin_comm_give_back(m->comm, m->uses + 1);
    else
      MPI_Comm_free(&m->comm);
    free(m);
  }
  p->impl = NULL;
  sp__mpi_own_calls = 0;
}

/* Gathers every rank's blob on every rank (to_all) or on rank 0 only; the
 * other ranks then get an empty *all (and offs unless ranks share cores). */
static int sp_gather(sp_par_t *p, const char *blob, int64_t len, int to_all, char **all,
                     int64_t **offs) {
  sp_mpi_impl_t *m = p->impl;
  if (!to_all && p->ranks_per_cpu > 1) {
    const int tag = SP_TAG_GATHER + m->gathers++ % SP_TAG_GATHERS;
    int err = sp__mpi_polite_gather(m->comm, p->rank, p->size, blob, (int)len, tag, all, offs);
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
  int mpi_rc = to_all
                   ? MPI_Allgatherv(blob, mylen, MPI_BYTE, *all, lens, displs, MPI_BYTE, m->comm)
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
  (void)sp__par_agree(p, 0);
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
 * protects, docs/design.md "How finalize writes".) */
int sp__par_raw_write_at(sp_par_t *p, const sp_block_t *blocks, int n, const char *buf) {
  sp_mpi_impl_t *m = p->impl;
  MPI_Status status;
  for (int i = 0; i < n; i++) {
    int written = 0;
    if (MPI_File_write_at(m->fh, (MPI_Offset)blocks[i].file_off, buf + blocks[i].mem_off,
                          (int)blocks[i].len, MPI_BYTE, &status) != MPI_SUCCESS ||
        MPI_Get_count(&status, MPI_BYTE, &written) != MPI_SUCCESS || written != (int)blocks[i].len)
      return SP_EIO;
  }
  return 0;
}

/* The length first, then the bytes: the receiver allocates in between. */
int sp__par_send_blob(sp_par_t *p, int to, int tag, const char *blob, int64_t len) {
  sp_mpi_impl_t *m = p->impl;
  if (len > INT32_MAX) len = -1; /* one message of MPI_BYTE counts in an int */
  int err = sp__mpi_polite_send(m->comm, &len, 1, MPI_INT64_T, to, tag);
  if (err == MPI_SUCCESS && len > 0)
    err = sp__mpi_polite_send(m->comm, blob, (int)len, MPI_BYTE, to, tag);
  return err == MPI_SUCCESS ? 0 : SP_EMPI;
}

int sp__par_recv_blob(sp_par_t *p, int from, int tag, char **blob, int64_t *len) {
  sp_mpi_impl_t *m = p->impl;
  MPI_Request r;
  *blob = NULL;
  *len = -1;
  int err = MPI_Irecv(len, 1, MPI_INT64_T, from, tag, m->comm, &r);
  if (err == MPI_SUCCESS) err = sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE);
  if (err != MPI_SUCCESS) return SP_EMPI;
  if (*len <= 0) return 0;
  *blob = malloc((size_t)*len);
  /* Without memory the message is still taken (truncated to nothing). */
  char none[1];
  err = MPI_Irecv(*blob ? *blob : none, *blob ? (int)*len : 0, MPI_BYTE, from, tag, m->comm, &r);
  if (err == MPI_SUCCESS) err = sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE);
  if (err != MPI_SUCCESS && *blob) {
    free(*blob);
    *blob = NULL;
    return SP_EMPI;
  }
  return *blob ? 0 : SP_ENOMEM;
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

int sp__par_agree_then(sp_par_t *p, int rc, int (*root_then)(void *), void *arg) {
  if (!p->active) return rc == 0 ? root_then(arg) : rc;
  sp_mpi_impl_t *m = p->impl;
  if (p->ranks_per_cpu > 1) {
    int worst = rc;
    int err = sp__mpi_polite_min_then(m->comm, p->rank, p->size, rc, &worst, root_then, arg);
    return err == MPI_SUCCESS ? worst : SP_EMPI;
  }
  /* Ranks with cores of their own: an agreement, then rank 0's status. */
  int worst = sp__par_agree(p, rc);
  if (worst != 0) return worst; /* agreed: no rank goes on */
  int mine = p->rank == 0 ? root_then(arg) : 0;
  return MPI_Bcast(&mine, 1, MPI_INT, 0, m->comm) == MPI_SUCCESS ? mine : SP_EMPI;
}

/* ---- the columnar layout (columnar_write.c) ------------------------------- */

enum { SP_TAG_BCAST_LEN = 7312, SP_TAG_BCAST = 7313, SP_TAG_EACH = 7315 };

/* Rank 0 sends count values of buf[r] (or of buf0 when bufs is NULL) to
 * every other rank r at once; returns when all are sent. */
static int sp_send_all(sp_par_t *p, void *const *bufs, const void *buf0, int count, MPI_Datatype t,
                       int tag) {
  MPI_Comm comm = ((sp_mpi_impl_t *)p->impl)->comm;
  MPI_Request *reqs = malloc((size_t)p->size * sizeof *reqs);
  int err = MPI_SUCCESS;
  for (int r = 1; r < p->size && err == MPI_SUCCESS; r++) {
    const void *b = bufs ? bufs[r] : buf0;
    err = reqs ? MPI_Isend(b, count, t, r, tag, comm, &reqs[r - 1])
               : sp__mpi_polite_send(comm, b, count, t, r, tag);
  }
  if (reqs && err == MPI_SUCCESS)
    err = sp__mpi_polite_waitall(p->size - 1, reqs, MPI_STATUSES_IGNORE);
  free(reqs);
  return err;
}

/* Rank 0's sends of blob (n bytes, malloc'd: taken over) to every other
 * rank, completed later (sp__par_late_finish): a message above MPI's eager
 * limit (4 KiB in Open MPI's shared memory) is sent only once its receiver
 * has taken it, and rank 0 waiting for the last rank to wake up left its
 * own next step (creating the file) to compete for the CPU with every
 * rank that had woken up: 2 ms of a 15-ms finalize at 16 ranks on 2 cores
 * (docs/performance.md, "rank 0 does not wait for the table"). */
static int sp_send_all_late(sp_par_t *p, char *blob, int n, int tag) {
  sp_mpi_impl_t *m = p->impl;
  int err = sp__par_late_finish(p) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER; /* one at a time */
  m->late = malloc((size_t)p->size * sizeof *m->late);
  if (!m->late) { /* sent now, as any other broadcast */
    if (err == MPI_SUCCESS) err = sp_send_all(p, NULL, blob, n, MPI_BYTE, tag);
    free(blob);
    return err;
  }
  m->late_blob = blob;
  for (int r = 1; r < p->size && err == MPI_SUCCESS; r++)
    if ((err = MPI_Isend(blob, n, MPI_BYTE, r, tag, m->comm, &m->late[m->nlate])) == MPI_SUCCESS)
      m->nlate++;
  return err;
}

/* Receives count values from rank 0, sleeping while waiting. */
static int sp_recv_politely(sp_par_t *p, void *buf, int count, MPI_Datatype t, int tag) {
  MPI_Request r;
  int err = MPI_Irecv(buf, count, t, 0, tag, ((sp_mpi_impl_t *)p->impl)->comm, &r);
  return err == MPI_SUCCESS ? sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE) : err;
}

hid_t sp__par_dxpl(sp_par_t *p) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (p->active) H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  return dxpl;
}

/* The broadcast where ranks share CPUs: rank 0 sends to each, the others
 * sleep while waiting. late: rank 0's *buf is taken over and its sends
 * complete later (sp_send_all_late). */
static int sp_bcast_politely(sp_par_t *p, char **buf, int64_t *len, int late) {
  int64_t n = *len;
  if (p->rank == 0) {
    int err = sp_send_all(p, NULL, &n, 1, MPI_INT64_T, SP_TAG_BCAST_LEN);
    if (late) {
      char *blob = *buf;
      *buf = NULL;
      if (err == MPI_SUCCESS && n >= 0) return sp_send_all_late(p, blob, (int)n, SP_TAG_BCAST);
      free(blob);
    } else if (err == MPI_SUCCESS && n >= 0) {
      err = sp_send_all(p, NULL, *buf, (int)n, MPI_BYTE, SP_TAG_BCAST);
    }
    return err != MPI_SUCCESS ? SP_EMPI : n < 0 ? SP_EMPI : 0;
  }
  if (sp_recv_politely(p, &n, 1, MPI_INT64_T, SP_TAG_BCAST_LEN) != MPI_SUCCESS) return SP_EMPI;
  if (n < 0) return SP_EMPI; /* rank 0 failed */
  *buf = malloc((size_t)(n ? n : 1));
  char spare[1];
  /* Without memory the message is still received (truncated), then refused. */
  int err = sp_recv_politely(p, *buf ? *buf : spare, *buf ? (int)n : 0, MPI_BYTE, SP_TAG_BCAST);
  *len = n;
  if (!*buf) return SP_ENOMEM;
  return err == MPI_SUCCESS ? 0 : SP_EMPI;
}

int sp__par_bcast(sp_par_t *p, char **buf, int64_t *len) {
  if (!p->active) return *len < 0 ? SP_EMPI : 0;
  if (*len > INT32_MAX) *len = -1; /* one message: more is refused */
  if (p->ranks_per_cpu > 1) return sp_bcast_politely(p, buf, len, 0);
  MPI_Comm comm = ((sp_mpi_impl_t *)p->impl)->comm;
  int64_t n = p->rank == 0 ? *len : 0;
  if (MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS) return SP_EMPI;
  if (n < 0) return SP_EMPI; /* rank 0 failed */
  if (p->rank != 0) {
    *buf = malloc((size_t)(n ? n : 1));
    *len = n;
  }
  /* In pieces, so that a rank without memory for the whole still takes
   * part in every broadcast (a tree broadcast would wait for it), into a
   * scratch piece whose pages are touched only then. */
  static char scratch[1 << 20];
  int err = MPI_SUCCESS;
  for (int64_t at = 0; at < n && err == MPI_SUCCESS; at += (int64_t)sizeof scratch) {
    int k = (int)(n - at < (int64_t)sizeof scratch ? n - at : (int64_t)sizeof scratch);
    err = MPI_Bcast(*buf ? *buf + at : scratch, k, MPI_BYTE, 0, comm);
  }
  if (!*buf) return SP_ENOMEM;
  return err == MPI_SUCCESS ? 0 : SP_EMPI;
}

int sp__par_bcast_each(sp_par_t *p, char **buf, int64_t *len, const int64_t *each, int k,
                       int64_t *mine) {
  static const int64_t zeros[8] = {0};
  if (k > 8) return SP_EINVAL;
  if (p->rank != 0) *len = -1; /* until rank 0's length comes */
  if (p->rank == 0) memcpy(mine, each ? each : zeros, (size_t)k * sizeof *mine);
  if (!p->active) {
    free(*buf); /* rank 0's, taken over */
    *buf = NULL;
    return *len < 0 ? SP_EMPI : 0;
  }
  MPI_Comm comm = ((sp_mpi_impl_t *)p->impl)->comm;
  if (p->ranks_per_cpu > 1) {
    /* Each rank's values first: small, they go without waiting for their
     * receivers, which have posted the receive before they wait for the
     * blob (one wake-up for both). */
    int err = MPI_SUCCESS;
    if (p->rank == 0) {
      void **bufs = each ? malloc((size_t)p->size * sizeof *bufs) : NULL;
      for (int r = 0; bufs && r < p->size; r++) bufs[r] = (void *)(each + (size_t)r * (size_t)k);
      err = sp_send_all(p, bufs, zeros, k, MPI_INT64_T, SP_TAG_EACH);
      free(bufs);
      if (each && !bufs) *len = -1;    /* the values could not be told apart: a failure */
      if (*len > INT32_MAX) *len = -1; /* one message: more is refused */
      int brc = sp_bcast_politely(p, buf, len, 1);
      return err != MPI_SUCCESS ? SP_EMPI : brc;
    }
    MPI_Request r;
    err = MPI_Irecv(mine, k, MPI_INT64_T, 0, SP_TAG_EACH, comm, &r);
    int brc = sp__par_bcast(p, buf, len);
    if (err == MPI_SUCCESS) err = sp__mpi_polite_waitall(1, &r, MPI_STATUSES_IGNORE);
    return err != MPI_SUCCESS ? SP_EMPI : brc;
  }
  int64_t *none = p->rank == 0 && !each ? calloc((size_t)p->size * (size_t)k, sizeof *none) : NULL;
  if (p->rank == 0 && !each && !none) *len = -1; /* no values to scatter: a failure */
  int brc = sp__par_bcast(p, buf, len);
  int err = MPI_SUCCESS;
  if (*len >= 0) /* rank 0's length came (the same on every rank): the values follow */
    err = MPI_Scatter(each ? each : none, k, MPI_INT64_T, mine, k, MPI_INT64_T, 0, comm);
  free(none);
  if (p->rank == 0) {
    free(*buf);
    *buf = NULL;
  }
  return err != MPI_SUCCESS ? SP_EMPI : brc;
}
