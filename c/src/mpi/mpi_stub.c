/* mpi_stub.c - the MPI interface of finalize in a build without MPI:
 * one process, rank 0, plain POSIX writes. */
#include <stdlib.h>

#include "par.h"

/* The Fortran module may pass a communicator; without MPI it is refused. */
SP_EXPORT int sp_mpi_set_comm_f(int comm);
int sp_mpi_set_comm_f(int comm) {
  (void)comm;
  return SP_ENOTSUP;
}

void sp__mpi_note_setup(void) {}
int sp__mpi_rank_if_known(void) { return -1; }
const char *sp__mpi_writer(void) { return ""; }
int sp__par_usable(void) { return 0; }

void sp__par_session_begin(void) {}

int sp__par_begin(sp_par_t *p, sp_par_op_t op) {
  (void)op;
  p->active = 0;
  p->rank = 0;
  p->size = 1;
  p->ranks_per_cpu = 1;
  p->any_active = -1;
  p->impl = NULL;
  return 0;
}
void sp__par_end(sp_par_t *p, int keep) { (void)p, (void)keep; }
int sp__par_clock_offset(sp_par_t *p, sp_clock_offset_t *out) {
  (void)p;
  *out = (sp_clock_offset_t){0, sp__monotonic_ns(), 0, 1, 0};
  return 0;
}
int sp__par_allgather(sp_par_t *p, const char *blob, int64_t len, char **all, int64_t **offs) {
  (void)p, (void)blob, (void)len, (void)all, (void)offs;
  return SP_ENOTSUP;
}
int sp__par_gather_root(sp_par_t *p, const char *blob, int64_t len, char **all, int64_t **offs) {
  return sp__par_allgather(p, blob, len, all, offs);
}
hid_t sp__par_fapl(sp_par_t *p) {
  (void)p;
  return H5Pcreate(H5P_FILE_ACCESS);
}
int sp__par_scatter_offsets(sp_par_t *p, const struct sp_rank_plan *plans,
                            struct sp_region_offsets *const *by_rank,
                            struct sp_region_offsets *mine, int32_t nmine) {
  (void)p, (void)plans, (void)by_rank, (void)mine, (void)nmine;
  return SP_ENOTSUP;
}
int sp__par_raw_open(sp_par_t *p, const char *path) {
  (void)p, (void)path;
  return SP_ENOTSUP;
}
int sp__par_raw_round(sp_par_t *p, sp_block_t *blocks, int n, const char *buf, int active,
                      int *any_active) {
  (void)p, (void)blocks, (void)n, (void)buf;
  *any_active = active;
  return 0;
}
int sp__par_raw_write_at(sp_par_t *p, const sp_block_t *blocks, int n, const char *buf) {
  (void)p, (void)blocks, (void)n, (void)buf;
  return SP_ENOTSUP;
}
int sp__par_raw_close(sp_par_t *p) {
  (void)p;
  return 0;
}
int sp__par_agree(sp_par_t *p, int rc) {
  (void)p;
  return rc;
}
int sp__par_agree_then(sp_par_t *p, int rc, int (*root_then)(void *), void *arg) {
  (void)p;
  return rc == 0 ? root_then(arg) : rc;
}
hid_t sp__par_dxpl(sp_par_t *p) {
  (void)p;
  return H5Pcreate(H5P_DATASET_XFER);
}
int sp__par_bcast(sp_par_t *p, char **buf, int64_t *len) {
  (void)p, (void)buf;
  return *len < 0 ? SP_EMPI : 0;
}
int sp__par_bcast_each(sp_par_t *p, char **buf, int64_t *len, const int64_t *each, int k,
                       int64_t *mine) {
  (void)p;
  free(*buf); /* rank 0's, taken over */
  *buf = NULL;
  for (int i = 0; i < k; i++) mine[i] = each ? each[i] : 0;
  return *len < 0 ? SP_EMPI : 0;
}
int sp__par_late_finish(sp_par_t *p) {
  (void)p;
  return 0;
}
int sp__par_send_blob(sp_par_t *p, int to, int tag, const char *blob, int64_t len) {
  (void)p, (void)to, (void)tag, (void)blob, (void)len;
  return SP_ENOTSUP;
}
int sp__par_recv_blob(sp_par_t *p, int from, int tag, char **blob, int64_t *len) {
  (void)p, (void)from, (void)tag, (void)blob, (void)len;
  return SP_ENOTSUP;
}
