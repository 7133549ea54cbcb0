/* fuzz_reader.c - libFuzzer harness for the reader library: the input
 * bytes become a file, which is opened with sp_reader_open and walked as
 * scope-profiler-pproc would: ranks, regions, info, intervals, stats,
 * extents, a filter. Any crash, sanitizer report or leak is a finding;
 * error returns are the expected outcome for most inputs. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "scope_profiler_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounds the walk so one input stays fast; the structure read at open is
 * not bounded (that is part of what is tested). */
#define SP_FUZZ_MAX_WALK 64

static char sp_fuzz_path[256];

/* One temporary file per process, rewritten for every input. */
static const char *sp_fuzz_file(const uint8_t *data, size_t size) {
  if (!sp_fuzz_path[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(sp_fuzz_path, sizeof sp_fuzz_path, "%s/sp_fuzz_reader.%ld.h5", tmp ? tmp : "/tmp",
             (long)getpid());
  }
  FILE *f = fopen(sp_fuzz_path, "wb");
  if (!f) abort(); /* the harness, not the target, is broken */
  if (size && fwrite(data, 1, size, f) != size) abort();
  if (fclose(f) != 0) abort();
  return sp_fuzz_path;
}

static void sp_fuzz_walk(sp_reader_t *r) {
  int nranks = sp_reader_num_ranks(r), nregions = sp_reader_num_regions(r);
  (void)sp_reader_schema(r);
  for (int k = -1; k <= nranks && k < SP_FUZZ_MAX_WALK; k++) {
    int id = sp_reader_rank_id(r, k);
    if (id >= 0 && sp_reader_rank_index(r, id) != k) abort(); /* the API's own promise */
  }
  char buf[64];
  for (int g = -1; g <= nregions && g < SP_FUZZ_MAX_WALK; g++) {
    const char *name = sp_reader_region_name(r, g);
    if (name) sp_reader_name_decode(name, buf, sizeof buf);
    (void)sp_reader_region_first_start(r, g);
    for (int k = 0; k < nranks && k < SP_FUZZ_MAX_WALK; k++) {
      sp_reader_info_t info;
      if (sp_reader_info(r, g, k, &info) != 0 || !info.present) continue;
      sp_reader_intervals_t iv;
      if (sp_reader_load(r, g, k, &iv) == 0) {
        sp_reader_stats_t st;
        if (sp_reader_stats_compute(&iv, &st) != 0) abort();
        for (int64_t i = 0; i < iv.n; i++)
          if (iv.end[i] < iv.start[i]) abort(); /* load promises end >= start */
        sp_reader_intervals_free(&iv);
      }
      /* Slices of at most 8 into fixed arrays: never past them, end >= start. */
      int64_t s8[8], e8[8], got;
      int32_t t8[8];
      for (int64_t at = 0; at < 64 && (got = sp_reader_read_range(r, g, k, at, 8, s8, e8, t8)) > 0;
           at += got) {
        if (got > 8) abort();
        for (int64_t i = 0; i < got; i++)
          if (e8[i] < s8[i]) abort();
      }
      int64_t first, last;
      (void)sp_reader_extent(r, g, k, &first, &last);
    }
  }
  int *sel = malloc(((size_t)nregions + 1) * sizeof *sel);
  if (!sel) return;
  const char *inc[] = {"a", ".*"}, *exc[] = {"b"};
  int count;
  (void)sp_reader_filter(r, inc, 2, exc, 1, sel, &count);
  free(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = sp_fuzz_file(data, size);
  sp_reader_t *r = NULL;
  char msg[256];
  if (sp_reader_open(path, &r, msg, sizeof msg) == 0) {
    sp_fuzz_walk(r);
    (void)sp_reader_errmsg(r);
    sp_reader_close(r);
  } else if (r != NULL) {
    abort(); /* failure must leave *out NULL */
  }
  unlink(path); /* the next input writes it again; none is left behind */
  /* Every HDF5 object the reader opened must be closed again, also on the
   * error paths (an id left open keeps the file and its memory). */
  ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open_objects != 0) {
    fprintf(stderr, "fuzz_reader: %zd HDF5 object(s) left open\n", open_objects);
    abort();
  }
  return 0;
}
