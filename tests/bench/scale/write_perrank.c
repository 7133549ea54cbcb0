/* write_perrank.c - the per-rank layout of make_read_files.py written with
 * the HDF5 C library, for files of 10^5 ranks (issue 47).
 *
 * h5py writes about 600 region groups a second here, so the per-rank file
 * of 100,000 ranks x 50 regions (5 million groups) took it over two hours;
 * this writes the same objects in the same order (root attribute
 * scope_profiler_schema = 1, metadata/@mpi_size, then per rank
 * rank<N>/regions/<name>/{start_times,end_times}, int64, contiguous, the
 * original file format as h5py's libver="earliest") from the arrays that
 * make_read_files.py's data() gives, dumped raw (int64, [rank][region][call]).
 *
 * usage: write_perrank OUT.h5 RANKS REGIONS CALLS STARTS.raw ENDS.raw */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int attr_i64(hid_t obj, const char *name, int64_t v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(s);
  return rc;
}

static int dataset(hid_t g, const char *name, hid_t space, hid_t dcpl, const int64_t *v) {
  hid_t d = H5Dcreate2(g, name, H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  int rc = d >= 0 && H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 ? 0 : -1;
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* One rank's groups; starts and ends hold its regions x calls values. */
static int rank_write(hid_t f, long r, long nregions, long ncalls, hid_t space, hid_t dcpl,
                      const int64_t *starts, const int64_t *ends) {
  char path[64];
  snprintf(path, sizeof path, "rank%ld", r);
  hid_t rg = H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t regs = rg >= 0 ? H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = regs >= 0 ? 0 : -1;
  for (long g = 0; rc == 0 && g < nregions; g++) {
    char name[32];
    snprintf(name, sizeof name, "region_%03ld", g);
    hid_t grp = H5Gcreate2(regs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    rc = grp >= 0 ? 0 : -1;
    /* h5py's order: start_times then end_times. */
    if (rc == 0) rc = dataset(grp, "start_times", space, dcpl, starts + g * ncalls);
    if (rc == 0) rc = dataset(grp, "end_times", space, dcpl, ends + g * ncalls);
    if (grp >= 0) H5Gclose(grp);
  }
  if (regs >= 0) H5Gclose(regs);
  if (rg >= 0) H5Gclose(rg);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: write_perrank OUT.h5 RANKS REGIONS CALLS STARTS.raw ENDS.raw\n");
    return 2;
  }
  long nranks = atol(argv[2]), nregions = atol(argv[3]), ncalls = atol(argv[4]);
  if (nranks <= 0 || nregions <= 0 || nregions > 999 || ncalls <= 0) {
    fprintf(stderr, "write_perrank: RANKS, REGIONS (at most 999) and CALLS must be positive\n");
    return 2;
  }
  size_t per = (size_t)nregions * (size_t)ncalls;
  int64_t *starts = malloc(per * sizeof *starts), *ends = malloc(per * sizeof *ends);
  FILE *fs = fopen(argv[5], "rb"), *fe = fopen(argv[6], "rb");
  if (!starts || !ends || !fs || !fe) {
    fprintf(stderr, "write_perrank: cannot read %s or %s\n", argv[5], argv[6]);
    return 1;
  }
  hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  int rc = f >= 0 ? attr_i64(f, "scope_profiler_schema", 1) : -1;
  hid_t meta = rc == 0 ? H5Gcreate2(f, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (meta >= 0) {
    rc = attr_i64(meta, "mpi_size", nranks);
    H5Gclose(meta);
  } else {
    rc = -1;
  }
  hsize_t dims[1] = {(hsize_t)ncalls};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0); /* as h5py's datasets */
  for (long r = 0; rc == 0 && r < nranks; r++) {
    if (fread(starts, sizeof *starts, per, fs) != per ||
        fread(ends, sizeof *ends, per, fe) != per) {
      fprintf(stderr, "write_perrank: %s or %s is short at rank %ld\n", argv[5], argv[6], r);
      rc = -1;
      break;
    }
    rc = rank_write(f, r, nregions, ncalls, space, dcpl, starts, ends);
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  if (f >= 0 && H5Fclose(f) < 0) rc = -1;
  fclose(fs);
  fclose(fe);
  free(starts);
  free(ends);
  if (rc) fprintf(stderr, "write_perrank: writing %s failed\n", argv[1]);
  return rc ? 1 : 0;
}
