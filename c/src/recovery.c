/* recovery.c - rebuilding the profile from spill files after a run died.
 *
 * Serial and without MPI: each spill file is one rank's log; its events
 * are converted with its own calibration records and written in the
 * documented layout exactly as finalize would have. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout.h"
#include "par.h"
#include "raw_write.h"

typedef struct sp_rank_src {
  sp_local_t local; /* plan and spill of one rank */
  int used;         /* a spill file was found for this rank */
} sp_rank_src_t;

/* Plan of one spill file: every named region that has events. */
static int sp_plan_from_spill(sp_local_t *l, int32_t rank) {
  sp_spill_file_t *f = &l->spill;
  for (int64_t c = 0; c < f->nchunks; c++)
    if (f->chunks[c].thread + 1 > l->nthreads) l->nthreads = f->chunks[c].thread + 1;
  l->threads = calloc((size_t)(l->nthreads ? l->nthreads : 1), sizeof *l->threads);
  l->plan.regions = calloc((size_t)(f->nnames ? f->nnames : 1), sizeof *l->plan.regions);
  l->handles = calloc((size_t)(f->nnames ? f->nnames : 1), sizeof *l->handles);
  if (!l->threads || !l->plan.regions || !l->handles) return SP_ENOMEM;
  sp_rank_plan_t *p = &l->plan;
  p->rank = rank;
  p->time_trace = 1;
  p->clock_tsc = (int32_t)f->header.clock_tsc;
  p->recovered = 1;
  p->wall_time = f->header.wall_time;
  memcpy(p->host, f->header.host, sizeof p->host);
  for (int32_t h = 0; h < f->nnames; h++) {
    if (!f->names[h]) continue;
    sp_plan_region_t r = {0};
    for (int64_t c = 0; c < f->nchunks; c++) {
      if (f->chunks[c].region != h || f->chunks[c].n == 0) continue;
      r.nevents += f->chunks[c].n;
      if (f->chunks[c].thread != 0) r.thread_ids = 1;
    }
    if (r.nevents == 0) continue;
    r.ncalls = r.nevents;
    r.name = f->names[h];
    r.len = (uint32_t)strlen(f->names[h]);
    l->handles[p->nregions] = h;
    p->regions[p->nregions++] = r;
  }
  p->nthreads = l->nthreads;
  l->calib = &f->calib;
  return 0;
}

static int sp_path_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Expands directories into their *.spill files (sorted). */
static int sp_collect_paths(const char *const *inputs, int n, char ***out, int *nout) {
  char **paths = NULL;
  int np = 0, cap = 0;
  for (int i = 0; i < n; i++) {
    struct stat sb;
    if (stat(inputs[i], &sb) != 0) {
      sp__log(0, SP_LOG_ALWAYS, "cannot read '%s'", inputs[i]);
      continue;
    }
    DIR *d = S_ISDIR(sb.st_mode) ? opendir(inputs[i]) : NULL;
    struct dirent *e;
    const char *single = d ? NULL : inputs[i];
    while (single || (d && (e = readdir(d)) != NULL)) {
      char full[SP_PATH_MAX];
      if (single) {
        snprintf(full, sizeof full, "%s", single);
      } else {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".spill") != 0) continue;
        if (snprintf(full, sizeof full, "%s/%s", inputs[i], e->d_name) >= (int)sizeof full)
          continue;
      }
      if (np == cap) {
        cap = cap ? cap * 2 : 16;
        char **nps = realloc(paths, (size_t)cap * sizeof *nps);
        if (!nps) break;
        paths = nps;
      }
      paths[np] = strdup(full);
      if (paths[np]) np++;
      if (single) break;
    }
    if (d) closedir(d);
  }
  if (np > 1) qsort(paths, (size_t)np, sizeof *paths, sp_path_cmp);
  *out = paths;
  *nout = np;
  return np > 0 ? 0 : SP_ESPILL;
}

/* Reads every file; a rank seen twice keeps its newest run. */
static int sp_load_ranks(char **paths, int np, sp_rank_src_t **out, int *nranks) {
  int32_t maxrank = -1, unranked = 0;
  sp_spill_file_t *files = calloc((size_t)np, sizeof *files);
  if (!files) return SP_ENOMEM;
  for (int i = 0; i < np; i++) {
    if (sp__spill_index(paths[i], &files[i]) != 0) {
      sp__log(1, SP_LOG_ALWAYS, "'%s' is not a readable spill file; skipped", paths[i]);
      sp__spill_free(&files[i]);
      continue;
    }
    if (files[i].damaged_bytes > 0)
      sp__log(1, SP_LOG_ALWAYS, "'%s': the last %lld bytes are an incomplete record (the run "
              "died while writing it); everything before is recovered", paths[i],
              (long long)files[i].damaged_bytes);
    if (files[i].rank > maxrank) maxrank = files[i].rank;
    if (files[i].size - 1 > maxrank) maxrank = files[i].size - 1;
    if (files[i].rank < 0) unranked++;
  }
  int n = maxrank + 1 + unranked;
  sp_rank_src_t *ranks = calloc((size_t)(n ? n : 1), sizeof *ranks);
  int next_free = maxrank + 1;
  for (int i = 0; ranks && i < np; i++) {
    if (files[i].fd <= 0 && !files[i].chunks) continue;
    int32_t r = files[i].rank;
    if (r < 0) {
      r = next_free++;
      sp__log(1, SP_LOG_ALWAYS, "'%s' never learned its MPI rank; written as rank%d", paths[i], r);
    }
    if (ranks[r].used) {
      int newer = files[i].header.wall_time > ranks[r].local.spill.header.wall_time;
      sp__log(1, SP_LOG_ALWAYS, "two spill files for rank %d; keeping the %s run's", r,
              newer ? "later" : "earlier");
      if (!newer) {
        sp__spill_free(&files[i]);
        continue;
      }
      sp__local_free(&ranks[r].local);
    }
    ranks[r].local.spill = files[i];
    ranks[r].used = 1;
  }
  free(files);
  if (!ranks) return SP_ENOMEM;
  *out = ranks;
  *nranks = next_free > n ? next_free : n;
  return 0;
}

int sp_spill_merge(const char *const *inputs, int ninputs, const char *out_path) {
  if (!inputs || ninputs <= 0 || !out_path || !*out_path) return SP_EINVAL;
  char **paths = NULL;
  int np = 0, nranks = 0;
  int rc = sp_collect_paths(inputs, ninputs, &paths, &np);
  sp_rank_src_t *ranks = NULL;
  if (rc == 0) rc = sp_load_ranks(paths, np, &ranks, &nranks);
  if (rc == 0 && nranks == 0) rc = SP_ESPILL;
  sp_rank_plan_t *plans = rc == 0 ? calloc((size_t)nranks, sizeof *plans) : NULL;
  sp_region_offsets_t **offs = rc == 0 ? calloc((size_t)nranks, sizeof *offs) : NULL;
  if (rc == 0 && (!plans || !offs)) rc = SP_ENOMEM;
  int64_t events = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    sp_local_t *l = &ranks[r].local;
    if (ranks[r].used) {
      rc = sp_plan_from_spill(l, r);
    } else {
      l->spill.fd = -1;
      l->plan.rank = r;
      l->plan.time_trace = 1;
      l->plan.recovered = 1;
    }
    plans[r] = l->plan;
    for (int32_t i = 0; i < l->plan.nregions; i++) events += l->plan.regions[i].nevents;
    offs[r] = calloc((size_t)(l->plan.nregions + 1), sizeof **offs);
    if (rc == 0 && !offs[r]) rc = SP_ENOMEM;
  }
  char partial[SP_PATH_MAX + 16];
  if (rc == 0 && snprintf(partial, sizeof partial, "%s.partial", out_path) >= (int)sizeof partial)
    rc = SP_EPATH;
  if (rc == 0) rc = sp__layout_reserve(partial, plans, nranks);
  if (rc == 0) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    rc = sp__layout_create(fapl, partial, plans, nranks, offs);
    H5Pclose(fapl);
  }
  for (int r = 0; rc == 0 && r < nranks; r++) {
    if (!ranks[r].used || ranks[r].local.plan.nregions == 0) continue;
    sp_par_t serial = {.active = 0, .rank = 0, .size = 1};
    rc = sp__raw_write(&serial, partial, &ranks[r].local, offs[r], SP_RAW_POSIX, 1 << 20);
  }
  if (rc == 0 && rename(partial, out_path) != 0) rc = SP_EIO;
  if (rc == 0) {
    sp__log(2, SP_LOG_ALWAYS, "recovered %lld events of %d rank(s) from %d spill file(s) into '%s'",
            (long long)events, nranks, np, out_path);
  } else if (np > 0) {
    unlink(partial);
    sp__log(0, SP_LOG_ALWAYS, "recovery into '%s' failed: %s", out_path, sp_strerror(rc));
  }
  for (int r = 0; ranks && r < nranks; r++) {
    sp__local_free(&ranks[r].local);
    if (offs) free(offs[r]);
  }
  free(ranks);
  free(offs);
  free(plans);
  for (int i = 0; i < np; i++) free(paths[i]);
  free(paths);
  return rc;
}
