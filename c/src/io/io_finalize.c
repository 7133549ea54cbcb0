/* io_finalize.c - profile_io's file records at finalize: every rank packs
 * its table (io_files.c), rank 0 gathers them and writes rank<N>/io and/or
 * io_files/ (write/io_write.c) after the stamps, as the samples are. */
#include <stdlib.h>

#include "par_gather.h"
#include "io_files.h"
#include "io_finalize.h"
#include "io_write.h"
#include "par.h"

/* Every rank's blob on rank 0 (*all, offs[r]); *any: some rank has one. */
static int sp_io_gather(sp_par_t *par, char **all, int64_t **offs, int *any) {
  *all = NULL;
  *offs = NULL;
  char *blob = NULL;
  int64_t len = 0;
  if (sp__io_files_pack(&blob, &len) != 0) {
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "profile_io: the file records are lost (no memory)");
    len = 0;
  }
  *any = sp__par_agree(par, len > 0 ? -1 : 0) == -1;
  if (!*any) {
    free(blob);
    return 0;
  }
  return sp__par_gather_own(par, blob, len, all, offs);
}

static int sp_io_write_to(const char *path, int nranks, const char *all, const int64_t *offs,
                          int columnar) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  int rc = f >= 0 ? 0 : SP_EHDF5;
  if (rc == 0 && columnar) rc = sp__io_write_columnar(f, nranks, all, offs);
  for (int r = 0; rc == 0 && !columnar && r < nranks; r++)
    rc = sp__io_write_rank(f, r, all + offs[r], offs[r + 1] - offs[r]);
  if (f >= 0 && H5Fclose(f) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

void sp__io_spill(void) {
  char *blob = NULL;
  int64_t len = 0;
  if (sp__io_files_pack(&blob, &len) == 0 && len > 0 && sp__spill_io_files(blob, (size_t)len) != 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "profile_io: the file records could not be kept in the spill file");
  free(blob);
}

int sp__io_finalize(sp_par_t *par, const char *ranks_path, const char *col_path) {
  char *all = NULL;
  int64_t *offs = NULL;
  int any = 0;
  int rc = sp_io_gather(par, &all, &offs, &any);
  if (rc == 0 && any && par->rank == 0) {
    if (ranks_path) rc = sp_io_write_to(ranks_path, par->size, all, offs, 0);
    if (rc == 0 && col_path) rc = sp_io_write_to(col_path, par->size, all, offs, 1);
  }
  free(all);
  free(offs);
  return rc;
}
