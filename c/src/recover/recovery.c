/* recovery.c - rebuilding the profile from spill files after a run died.
 *
 * Serial and without MPI: each spill file is one rank's log; its events
 * are converted with its own calibration records and written in the
 * documented layout exactly as finalize would have: the per-rank layout,
 * or the columnar one where the run asked for it (SCOPE_PROFILER_LAYOUT,
 * recorded in its spill files; both: the two files). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aggregate_recover.h"
#include "columnar_write.h"
#include "file_end.h"
#include "layout.h"
#include "out_target.h"
#include "out_temp.h"
#include "par.h"
#include "raw_write.h"
#include "completions_write.h"
#include "io_write.h"
#include "samples_write.h"
#include "values_write.h"

typedef struct sp_rank_src {
  sp_local_t local; /* plan and spill of one rank */
  int used;         /* a spill file was found for this rank */
  int file;         /* its index in the sorted paths */
} sp_rank_src_t;

/* rank<N>/mpi's communicator table from the file's SP_SPILL_MPI_COMMS
 * records, as finalize has it (sp__mpi_comms): comm_sizes by id (0 for
 * ids the rank is not in), comm_members one id after the other. The last
 * record of an id wins; a record whose ranks cannot be read is left out. */
static int sp_comms_from_spill(sp_rank_plan_t *p, const sp_spill_file_t *f) {
  int32_t top = -1;
  int64_t *last = NULL; /* by id: the chunk that holds it, -1 none */
  for (int64_t c = 0; c < f->ncomms_chunks; c++)
    top = f->comms[c].region > top ? f->comms[c].region : top;
  if (top < 0) return 0;
  last = malloc(((size_t)top + 1) * sizeof *last);
  p->comm_sizes = calloc((size_t)top + 1, sizeof *p->comm_sizes);
  if (!last || !p->comm_sizes) {
    free(last);
    return SP_ENOMEM;
  }
  for (int32_t id = 0; id <= top; id++) last[id] = -1;
  for (int64_t c = 0; c < f->ncomms_chunks; c++) last[f->comms[c].region] = c;
  int64_t nm = 0;
  for (int32_t id = 0; id <= top; id++) nm += last[id] >= 0 ? f->comms[last[id]].n : 0;
  p->comm_members = malloc((size_t)(nm > 0 ? nm : 1) * sizeof *p->comm_members);
  if (!p->comm_members) {
    free(last);
    return SP_ENOMEM;
  }
  for (int32_t id = 0; id <= top; id++) {
    if (last[id] < 0) continue;
    const sp_spill_chunk_t *c = &f->comms[last[id]];
    if (sp__pread_full(f->fd, p->comm_members + p->ncomm_members, (size_t)c->n * sizeof(int32_t),
                       c->offset))
      continue;
    p->comm_sizes[id] = (int32_t)c->n;
    p->ncomm_members += c->n;
  }
  p->ncomms = top + 1;
  free(last);
  return 0;
}

/* Plan of one spill file: every named region that has events. One pass
 * over the chunks, then one over the handles: a crafted file's largest
 * handle times its number of records would not finish. */
static int sp_plan_from_spill(sp_local_t *l, int32_t rank) {
  sp_spill_file_t *f = &l->spill;
  for (int64_t c = 0; c < f->nchunks; c++)
    if (f->chunks[c].thread + 1 > l->nthreads) l->nthreads = f->chunks[c].thread + 1;
  /* No thread buffers: everything is in the spill file (raw_write.c). */
  l->threads = NULL;
  const size_t nn = (size_t)(f->nnames ? f->nnames : 1);
  sp_plan_region_t *by_handle = calloc(nn, sizeof *by_handle);
  l->plan.regions = calloc(nn, sizeof *l->plan.regions);
  l->handles = calloc(nn, sizeof *l->handles);
  if (!by_handle || !l->plan.regions || !l->handles) {
    free(by_handle);
    return SP_ENOMEM;
  }
  for (int64_t c = 0; c < f->nchunks; c++) {
    sp_plan_region_t *r = &by_handle[f->chunks[c].region]; /* checked when indexed */
    r->nevents += f->chunks[c].n;
    if (f->chunks[c].n > 0 && f->chunks[c].thread != 0) r->thread_ids = 1;
  }
  for (int64_t c = 0; c < f->nxchunks; c++) by_handle[f->xchunks[c].region].mpi_extra = 1;
  sp_rank_plan_t *p = &l->plan;
  p->rank = rank;
  p->time_trace = 1;
  p->clock_tsc = (int32_t)f->header.clock_tsc;
  p->recovered = 1;
  p->wall_time = f->header.wall_time;
  p->trace_truncated_at = f->truncated_ns; /* SCOPE_PROFILER_TRACE_MAX_MB's cut, 0: none */
  memcpy(p->host, f->header.host, sizeof p->host);
  memcpy(p->clock, f->clock, sizeof p->clock);
  for (int32_t h = 0; h < f->nnames; h++) {
    sp_plan_region_t r = by_handle[h];
    if (!f->names[h] || r.nevents == 0) continue;
    r.ncalls = r.nevents;
    r.name = f->names[h];
    r.len = (uint32_t)strlen(f->names[h]);
    if (h < f->nsrc && f->src_file[h]) {
      r.src_file = f->src_file[h]; /* the spill file's, as the name */
      r.src_line = f->src_line[h];
    }
    l->handles[p->nregions] = h;
    p->regions[p->nregions++] = r;
  }
  free(by_handle);
  p->nthreads = l->nthreads;
  l->calib = &f->calib;
  int rc = sp_comms_from_spill(p, f);
  return rc ? rc : sp__meta_list_copy(&p->meta, &f->meta);
}

static int sp_region_cmp(const void *a, const void *b, void *arg) {
  const sp_plan_region_t *r = arg;
  int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
  int c = strcmp(r[i].name, r[j].name);
  return c ? c : (i > j) - (i < j);
}

/* Two handles with one name (a damaged REGION record) would make the
 * layout fail as a whole: the later handle's events are skipped. */
static int sp_drop_duplicate_names(sp_local_t *l, const char *path, int *problems) {
  sp_rank_plan_t *p = &l->plan;
  if (p->nregions < 2) return 0;
  int32_t *order = malloc((size_t)p->nregions * sizeof *order);
  uint8_t *drop = calloc((size_t)p->nregions, 1);
  if (!order || !drop) {
    free(order);
    free(drop);
    return SP_ENOMEM;
  }
  for (int32_t i = 0; i < p->nregions; i++) order[i] = i;
  qsort_r(order, (size_t)p->nregions, sizeof *order, sp_region_cmp, p->regions);
  for (int32_t k = 1; k < p->nregions; k++) {
    const sp_plan_region_t *a = &p->regions[order[k - 1]], *b = &p->regions[order[k]];
    if (strcmp(a->name, b->name) != 0) continue;
    drop[order[k]] = 1;
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s': region '%s' is named by two handles (%d and %d); the "
            "%lld events of the second are skipped",
            path, b->name, (int)l->handles[order[k - 1]], (int)l->handles[order[k]],
            (long long)b->nevents);
    (*problems)++;
  }
  int32_t n = 0;
  for (int32_t i = 0; i < p->nregions; i++) {
    if (drop[i]) continue;
    l->handles[n] = l->handles[i];
    p->regions[n++] = p->regions[i];
  }
  p->nregions = n;
  free(order);
  free(drop);
  return 0;
}

static int ranks_any_used(const sp_rank_src_t *ranks, int nranks) {
  for (int r = 0; r < nranks; r++)
    if (ranks[r].used) return 1;
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
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "cannot read '%s'", inputs[i]);
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

/* Says why a file was not read; the whole file is then skipped. */
static void sp_log_unreadable(const char *path, int rc, const sp_spill_file_t *f) {
  if (rc == SP_ESPILL && f->header.version > SP_SPILL_VERSION)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' was written in spill format version %u, newer than this "
            "tool's (%u); skipped: use the merge tool of the library that wrote it",
            path, (unsigned)f->header.version, (unsigned)SP_SPILL_VERSION);
  else if (rc == SP_ESPILL)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' is not a spill file (or its header is damaged); skipped", path);
  else
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "cannot read '%s': %s; skipped", path, sp_strerror(rc));
}

/* Indexes one file and reports what is damaged in it. Returns 0 when it is
 * used; *problems counts what could not be recovered. */
static int sp_index_one(const char *path, sp_spill_file_t *f, int *problems) {
  int rc = sp__spill_index(path, f);
  if (rc == SP_ESPILL && f->head_cut) { /* nothing was written to it: nothing lost here */
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "'%s' ends inside its header (its process died creating it): no events; skipped", path);
    sp__spill_free(f);
    return rc;
  }
  if (rc != 0) {
    sp_log_unreadable(path, rc, f);
    sp__spill_free(f);
    (*problems)++;
    return rc;
  }
  if (f->damaged > 0) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s': %lld damaged record(s) or span(s) skipped, the first at "
            "byte %lld; every whole record around them is recovered",
            path, (long long)f->damaged, (long long)f->first_damage);
    (*problems)++;
  }
  if (f->damaged_bytes > 0)
    sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
            "'%s': the last %lld bytes are an incomplete record (the run "
            "died while writing it); everything before is recovered",
            path, (long long)f->damaged_bytes);
  return 0;
}

static int sp_int_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The job's size is what most files say: one damaged RANK record must not
 * turn a 3-rank job into a million missing ranks. A file that disagrees
 * is reported; its rank is kept when it fits, else it counts as unranked. */
static void sp_agree_size(sp_spill_file_t *files, int np, char **paths, int *problems) {
  int32_t *sizes = malloc((size_t)(np ? np : 1) * sizeof *sizes);
  int n = 0;
  for (int i = 0; sizes && i < np; i++)
    if (files[i].fd >= 0 && files[i].size > 0) sizes[n++] = files[i].size;
  if (n < 2) {
    free(sizes);
    return;
  }
  qsort(sizes, (size_t)n, sizeof *sizes, sp_int_cmp);
  int32_t mode = sizes[0];
  for (int i = 0, best = 0, run = 0; i < n; i++) {
    run = i > 0 && sizes[i] == sizes[i - 1] ? run + 1 : 1;
    if (run > best) {
      best = run;
      mode = sizes[i];
    }
  }
  free(sizes);
  for (int i = 0; i < np; i++) {
    if (files[i].fd < 0 || files[i].size <= 0 || files[i].size == mode) continue;
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' says rank %d of %d, the other files %d ranks; its RANK record "
            "is taken as damaged",
            paths[i], (int)files[i].rank, (int)files[i].size, (int)mode);
    (*problems)++;
    files[i].size = mode;
    if (files[i].rank >= mode) files[i].rank = -1;
  }
}

/* 1 when spill file a was written by a later run than b: its first flush
 * later, or in the same second a larger pid (the later process, unless
 * pids wrapped in between). */
static int sp_later_run(const sp_spill_file_t *a, const sp_spill_file_t *b) {
  if (a->header.wall_time != b->header.wall_time) return a->header.wall_time > b->header.wall_time;
  return a->header.pid > b->header.pid;
}

/* Runs without an MPI rank (their files never learned one) are told apart
 * by their run id (SP_SPILL_RUN): two such runs killed in turn in one
 * spill directory were merged as rank0 and rank1 of one file. When the
 * latest file is such a run's, only that run's files are merged here;
 * otherwise the ranked files are (each rank's latest, sp_load_ranks) and
 * every file of a run without rank goes apart. Those files' indices go to
 * older[(*nolder)++]. Files without a run id (older writers) stay. */
static void sp_split_runs(sp_spill_file_t *files, int np, int *older, int *nolder) {
  int latest = -1;
  for (int i = 0; i < np; i++)
    if (files[i].fd >= 0 && (latest < 0 || sp_later_run(&files[i], &files[latest]))) latest = i;
  if (latest < 0) return;
  const uint64_t keep = files[latest].rank < 0 ? files[latest].run_id : 0;
  for (int i = 0; i < np; i++) {
    if (files[i].fd < 0) continue;
    int apart = keep ? files[i].run_id != keep : files[i].rank < 0 && files[i].run_id != 0;
    if (!apart) continue;
    older[(*nolder)++] = i;
    sp__spill_free(&files[i]);
  }
}

/* Reads every file; a rank seen twice keeps its latest run, and the other
 * file's index goes to older[(*nolder)++] (merged into a file of its own). */
static int sp_load_ranks(char **paths, int np, sp_rank_src_t **out, int *nranks, int *problems,
                         int *older, int *nolder) {
  int32_t maxrank = -1, unranked = 0;
  sp_spill_file_t *files = calloc((size_t)np, sizeof *files);
  if (!files) return SP_ENOMEM;
  for (int i = 0; i < np; i++) sp_index_one(paths[i], &files[i], problems);
  sp_split_runs(files, np, older, nolder);
  sp_agree_size(files, np, paths, problems);
  for (int i = 0; i < np; i++) {
    if (files[i].fd < 0) continue;
    if (files[i].rank > maxrank) maxrank = files[i].rank;
    if (files[i].size - 1 > maxrank) maxrank = files[i].size - 1;
    if (files[i].rank < 0) unranked++;
  }
  int n = maxrank + 1 + unranked;
  sp_rank_src_t *ranks = calloc((size_t)(n ? n : 1), sizeof *ranks);
  int next_free = maxrank + 1;
  for (int i = 0; ranks && i < np; i++) {
    if (files[i].fd < 0) continue; /* skipped above */
    int32_t r = files[i].rank;
    if (r < 0) {
      r = next_free++;
      if (maxrank >= 0) /* beside MPI ranks; a run without MPI is rank 0, said nowhere */
        sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS, "'%s' never learned its MPI rank; written as rank%d",
                paths[i], r);
    }
    if (ranks[r].used) { /* another run's file for this rank: merged apart */
      int newer = sp_later_run(&files[i], &ranks[r].local.spill);
      older[(*nolder)++] = newer ? ranks[r].file : i;
      if (!newer) {
        sp__spill_free(&files[i]);
        continue;
      }
      sp__local_free(&ranks[r].local);
      memset(&ranks[r].local, 0, sizeof ranks[r].local);
    }
    ranks[r].local.spill = files[i];
    ranks[r].used = 1;
    ranks[r].file = i;
  }
  for (int i = 0; !ranks && i < np; i++) sp__spill_free(&files[i]);
  free(files);
  if (!ranks) return SP_ENOMEM;
  *out = ranks;
  *nranks = next_free > n ? next_free : n;
  return 0;
}

/* Names the ranks without a usable spill file (a node's directory not
 * given, a file skipped above), as ranges: "1, 4-7". */
static void sp_report_missing(const sp_rank_src_t *ranks, int nranks, int *problems) {
  char list[512] = "";
  size_t len = 0;
  int missing = 0, full = 0;
  for (int r = 0; r < nranks; r++) {
    if (ranks[r].used) continue;
    int last = r;
    while (last + 1 < nranks && !ranks[last + 1].used) last++;
    missing += last - r + 1;
    if (!full && len < sizeof list - 32) {
      int k = last > r
                  ? snprintf(list + len, sizeof list - len, "%s%d-%d", len ? ", " : "", r, last)
                  : snprintf(list + len, sizeof list - len, "%s%d", len ? ", " : "", r);
      if (k > 0) len += (size_t)k;
    } else if (!full) {
      full = 1;
      snprintf(list + len, sizeof list - len, ", ...");
    }
    r = last;
  }
  if (missing == 0) return;
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
          "no readable spill file for %d of %d rank(s): %s; they are written "
          "as empty groups with the attribute missing = 1 (give every node's spill directory)",
          missing, nranks, list);
  (*problems)++;
}

/* Names the ranks whose spill file holds no events: MPI ranks write their
 * file's head at sp_setup, so such a rank recorded nothing or ended
 * (killed, e.g. by mpirun after another rank's exit or MPI_Abort) before
 * its first flush, and then its calls since sp_setup are lost. */
static void sp_report_empty(const sp_rank_src_t *ranks, int nranks) {
  char list[512] = "";
  size_t len = 0;
  int n = 0;
  for (int r = 0; r < nranks; r++) {
    const sp_spill_file_t *f = &ranks[r].local.spill;
    if (!ranks[r].used || f->nchunks > 0 || f->nsamples_chunks > 0) continue;
    n++;
    if (len < sizeof list - 16) {
      int k = snprintf(list + len, sizeof list - len, "%s%d", len ? ", " : "", r);
      if (k > 0) len += (size_t)k;
    } else if (list[len - 1] != '.') {
      len += (size_t)snprintf(list + len, sizeof list - len, ", ...");
    }
  }
  if (n == 0) return;
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "%d of %d rank(s) left a spill file without events (%s): each recorded nothing, or "
          "ended (killed, e.g. by mpirun after another rank's exit or MPI_Abort) before its "
          "first flush, and its calls since sp_setup are lost",
          n, nranks, list);
}

/* Marks rank<N>@missing = 1 on the ranks without data. */
static int sp_mark_missing(const char *path, const sp_rank_src_t *ranks, int nranks) {
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return SP_EHDF5;
  int rc = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    if (ranks[r].used) continue;
    char name[32];
    snprintf(name, sizeof name, "rank%d", r);
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = g >= 0 && space >= 0
                  ? H5Acreate2(g, "missing", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT)
                  : -1;
    const int32_t one = 1;
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT32, &one) < 0) rc = SP_EHDF5;
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    if (g >= 0) H5Gclose(g);
  }
  if (H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

/* SCOPE_PROFILER_SAMPLE_MS's samples of every rank that has some, and the
 * MPI request completions (completions_write.c). */
static int sp_write_samples(const char *path, const sp_rank_src_t *ranks, int nranks) {
  int any = 0;
  for (int r = 0; r < nranks; r++)
    any |= ranks[r].used &&
           (ranks[r].local.spill.nsamples_chunks > 0 || ranks[r].local.spill.ndone_chunks > 0);
  if (!any) return 0;
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return SP_EHDF5;
  int rc = 0;
  for (int r = 0; rc == 0 && r < nranks; r++)
    if (ranks[r].used) rc = sp__samples_recover(file, r, &ranks[r].local.spill);
  for (int r = 0; rc == 0 && r < nranks; r++) /* the MPI requests' completions */
    if (ranks[r].used) rc = sp__done_recover(file, r, &ranks[r].local.spill);
  if (H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

/* profile_io's per-file records of every rank whose spill file has them. */
static int sp_write_io(const char *path, const sp_rank_src_t *ranks, int nranks) {
  int any = 0;
  for (int r = 0; r < nranks; r++) any |= ranks[r].used && ranks[r].local.spill.io_len > 0;
  if (!any) return 0;
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return SP_EHDF5;
  int rc = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    const sp_spill_file_t *s = &ranks[r].local.spill;
    if (!ranks[r].used || s->io_len <= 0 || s->fd < 0) continue;
    char *blob = malloc((size_t)s->io_len);
    if (!blob) rc = SP_ENOMEM;
    if (rc == 0 && pread(s->fd, blob, (size_t)s->io_len, (off_t)s->io_off) != (ssize_t)s->io_len)
      rc = SP_ESPILL;
    if (rc == 0) rc = sp__io_write_rank(file, r, blob, s->io_len);
    free(blob);
  }
  if (H5Fclose(file) < 0 && rc == 0) rc = SP_EHDF5;
  return rc;
}

/* The values per call of every rank (values_write.c). */
static int sp_write_values(const char *path, int columnar, const sp_rank_src_t *ranks, int nranks) {
  sp_local_t *ls = malloc((size_t)nranks * sizeof *ls);
  if (!ls) return SP_ENOMEM;
  for (int r = 0; r < nranks; r++) {
    ls[r] = ranks[r].local; /* read only */
    if (!ranks[r].used) ls[r].spill.fd = -1;
  }
  int rc = sp__values_recover(path, columnar, ls, nranks);
  free(ls);
  return rc;
}

/* 1 when out_path is one of the inputs (replacing it would destroy it). */
static int sp_out_is_input(const char *out_path, char **paths, int np) {
  struct stat o, sb;
  if (stat(out_path, &o) != 0) return 0;
  for (int i = 0; i < np; i++)
    if (stat(paths[i], &sb) == 0 && sb.st_dev == o.st_dev && sb.st_ino == o.st_ino) {
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "output '%s' is the input '%s'; choose another output",
              out_path, paths[i]);
      return 1;
    }
  return 0;
}

/* Plans of every rank; ranks without a file get an empty plan. */
static int sp_plan_all(sp_rank_src_t *ranks, int nranks, sp_rank_plan_t *plans,
                       sp_region_offsets_t **offs, int64_t *events, char **paths, int *problems) {
  int rc = 0;
  for (int r = 0; rc == 0 && r < nranks; r++) {
    sp_local_t *l = &ranks[r].local;
    if (ranks[r].used) {
      rc = sp_plan_from_spill(l, r);
      if (rc == 0) rc = sp_drop_duplicate_names(l, paths[ranks[r].file], problems);
    } else {
      l->spill.fd = -1;
      l->plan.rank = r;
      l->plan.time_trace = 1;
      l->plan.recovered = 1;
    }
    plans[r] = l->plan;
    for (int32_t i = 0; i < l->plan.nregions; i++) *events += l->plan.regions[i].nevents;
    offs[r] = calloc((size_t)(l->plan.nregions + 1), sizeof **offs);
    if (rc == 0 && !offs[r]) rc = SP_ENOMEM;
  }
  return rc;
}

/* Writes the layout and every rank's events into tmp. */
static int sp_write_all(const char *tmp, sp_rank_src_t *ranks, int nranks, sp_rank_plan_t *plans,
                        sp_region_offsets_t **offs) {
  int rc = sp__layout_reserve(tmp, plans, nranks);
  if (rc == 0) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    rc = sp__layout_create(fapl, tmp, plans, nranks, offs);
    H5Pclose(fapl);
  }
  for (int r = 0; rc == 0 && r < nranks; r++) {
    if (!ranks[r].used || ranks[r].local.plan.nregions == 0) continue;
    sp_par_t serial = {.active = 0, .rank = 0, .size = 1};
    rc = sp__raw_write(&serial, tmp, &ranks[r].local, offs[r], SP_RAW_POSIX, 1 << 20);
  }
  if (rc == 0) rc = sp_mark_missing(tmp, ranks, nranks);
  if (rc == 0) rc = sp_write_samples(tmp, ranks, nranks);
  if (rc == 0) rc = sp_write_io(tmp, ranks, nranks);
  if (rc == 0) rc = sp_write_values(tmp, 0, ranks, nranks);
  return rc;
}

/* The layout the run asked for (its spill files' SP_SPILL_LAYOUT, the
 * first file's that has one); files of an older writer: the per-rank one. */
static int sp_merge_layout(const sp_rank_src_t *ranks, int nranks) {
  for (int r = 0; r < nranks; r++)
    if (ranks[r].used && ranks[r].local.spill.layout >= 0) {
      const int lay = ranks[r].local.spill.layout;
      if (lay == SP_LAYOUT_AUTO)
        return nranks >= SP_COLUMNAR_RANKS ? SP_LAYOUT_COLUMNAR : SP_LAYOUT_RANKS;
      return lay;
    }
  return SP_LAYOUT_RANKS;
}

/* The columnar layout of every rank into tmp (columnar_write.c). */
static int sp_write_columnar(const char *tmp, const sp_rank_src_t *ranks, int nranks) {
  sp_local_t *ls = malloc((size_t)nranks * sizeof *ls);
  if (!ls) return SP_ENOMEM;
  for (int r = 0; r < nranks; r++) ls[r] = ranks[r].local; /* read only */
  int rc = sp__columnar_write_serial(tmp, ls, nranks);
  free(ls);
  if (rc == 0) rc = sp_write_values(tmp, 1, ranks, nranks);
  return rc;
}

static int sp_out_not_regular(const char *out_path);

/* SCOPE_PROFILER_LAYOUT=both: the columnar file beside out_path, as
 * finalize puts it, from the same spill files. */
static int sp_merge_columnar_beside(const char *out_path, const sp_rank_src_t *ranks, int nranks,
                                    unsigned flags) {
  char col[SP_PATH_MAX + 64], tmp[SP_TEMP_MAX + 64] = "";
  snprintf(col, sizeof col, "%s%s", out_path, SP_COLUMNAR_SUFFIX);
  int rc = sp_out_not_regular(col) ? SP_EINVAL : 0;
  if (rc == 0) rc = sp__out_temp_create(col, tmp, sizeof tmp);
  if (rc == 0) rc = sp_write_columnar(tmp, ranks, nranks);
  if (rc == 0) rc = sp__file_end_check(tmp, col);
  if (rc == 0) rc = sp__out_publish_merge(tmp, col, (flags & SP_MERGE_REPLACE) != 0);
  if (rc == 0) sp__log(SP_LOG_INFO, SP_LOG_ALWAYS, "and in the columnar layout into '%s'", col);
  if (tmp[0]) unlink(tmp);
  return rc;
}

static int sp_merge_events(const char *const *inputs, int ninputs, const char *out_path,
                           unsigned flags, int level);

/* The files older[0..n) of paths (runs earlier than level's) into the
 * next earlier run's file (out_path: the latest run's); said first. */
static int sp_merge_earlier(char **paths, const int *older, int n, const char *out_path,
                            unsigned flags, int level) {
  const char **in = malloc((size_t)n * sizeof *in);
  char next[SP_PATH_MAX + 32];
  if (!in) return SP_ENOMEM;
  for (int k = 0; k < n; k++) in[k] = paths[older[k]];
  sp__earlier_path(out_path, level + 1, next, sizeof next);
  sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
          "%d spill file(s) of an earlier run (several runs wrote the same path, e.g. '%s'): "
          "merged apart into '%s'",
          n, in[0], next);
  int rc = sp_merge_events(in, n, out_path, flags, level + 1);
  free(in);
  return rc;
}

int sp_spill_merge(const char *const *inputs, int ninputs, const char *out_path) {
  return sp_spill_merge2(inputs, ninputs, out_path, SP_MERGE_REPLACE);
}

/* 1 when out_path is a FIFO, a device, a directory: never replaced. */
static int sp_out_not_regular(const char *out_path) {
  const char *kind = sp__out_target_kind(out_path);
  if (kind)
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s' is %s, not a regular file: not replaced", out_path,
            kind);
  return kind != NULL;
}

int sp_spill_merge2(const char *const *inputs, int ninputs, const char *out_path, unsigned flags) {
  if (!inputs || ninputs <= 0 || !out_path || !*out_path) return SP_EINVAL;
  if (flags & ~(unsigned)SP_MERGE_REPLACE) return SP_EINVAL;
  /* Spill files a finalize published as out_path before it was killed. */
  int published = 0;
  for (int i = 0; i < ninputs; i++)
    published += inputs[i] && sp__spill_note_check(inputs[i], out_path);
  if (published == ninputs) return 0;
  /* HDF5 prints its own error stacks; ours say what happened instead. */
  H5E_auto2_t old_fn;
  void *old_data;
  H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* Profile mode's aggregates (aggregate_recover.c); alone, they are all. */
  sp_agg_recovery_t agg;
  int agg_rc = sp__agg_recover(inputs, ninputs, out_path, (flags & SP_MERGE_REPLACE) != 0, &agg);
  if (agg.agg_files > 0 && agg.event_files == 0) {
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return agg_rc;
  }
  int rc = sp_merge_events(inputs, ninputs, out_path, flags, 0);
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  return rc ? rc : agg_rc;
}

/* Merges the event spill files of inputs into out_path: one file per rank
 * (its latest run's); the files of earlier runs in the same inputs (runs
 * killed writing one path) go, run by run, to files of their own
 * (sp_merge_earlier): level k > 0 merges the k-th earlier run into
 * "<stem>.earlier<k><ext>" beside out_path. Nothing is ever removed. */
static int sp_merge_events(const char *const *inputs, int ninputs, const char *base_out,
                           unsigned flags, int level) {
  char out_path[SP_PATH_MAX + 32];
  if (level > 0)
    sp__earlier_path(base_out, level, out_path, sizeof out_path);
  else
    snprintf(out_path, sizeof out_path, "%s", base_out);
  char **paths = NULL;
  int np = 0, nranks = 0, problems = 0;
  int rc = sp_collect_paths(inputs, ninputs, &paths, &np);
  if (rc == 0 && sp_out_is_input(out_path, paths, np)) rc = SP_EINVAL;
  if (rc == 0 && sp_out_not_regular(out_path)) rc = SP_EINVAL;
  sp_rank_src_t *ranks = NULL;
  int *older = rc == 0 ? malloc((size_t)np * sizeof *older) : NULL, nolder = 0;
  if (rc == 0 && !older) rc = SP_ENOMEM;
  if (rc == 0) rc = sp_load_ranks(paths, np, &ranks, &nranks, &problems, older, &nolder);
  if (rc == 0 && !ranks_any_used(ranks, nranks)) rc = SP_ESPILL;
  sp_rank_plan_t *plans = rc == 0 ? calloc((size_t)nranks, sizeof *plans) : NULL;
  sp_region_offsets_t **offs = rc == 0 ? calloc((size_t)nranks, sizeof *offs) : NULL;
  if (rc == 0 && (!plans || !offs)) rc = SP_ENOMEM;
  int64_t events = 0;
  if (rc == 0) rc = sp_plan_all(ranks, nranks, plans, offs, &events, paths, &problems);
  if (rc == 0) sp_report_missing(ranks, nranks, &problems);
  if (rc == 0) sp_report_empty(ranks, nranks);
  /* Only a file this call created is ever written to or removed. */
  char tmp[SP_TEMP_MAX] = "";
  if (rc == 0) rc = sp__out_temp_create(out_path, tmp, sizeof tmp);
  /* The layout the run asked for: both, the columnar file beside. */
  const int layout = rc == 0 ? sp_merge_layout(ranks, nranks) : SP_LAYOUT_RANKS;
  if (rc == 0)
    rc = layout == SP_LAYOUT_COLUMNAR ? sp_write_columnar(tmp, ranks, nranks)
                                      : sp_write_all(tmp, ranks, nranks, plans, offs);
  if (rc == 0) rc = sp__file_end_check(tmp, out_path);
  int aside = 0; /* not published, kept under a name of its own (said so) */
  if (rc == 0) {
    rc = sp__out_publish_merge(tmp, out_path, (flags & SP_MERGE_REPLACE) != 0);
    aside = rc == SP_EPATH;
  }
  if (rc == 0) {
    sp__log(SP_LOG_INFO, SP_LOG_ALWAYS,
            "recovered %lld events of %d rank(s) from %d spill file(s) into '%s'",
            (long long)events, nranks, np - nolder, out_path);
    if (layout == SP_LAYOUT_BOTH) rc = sp_merge_columnar_beside(out_path, ranks, nranks, flags);
    if (rc == 0 && problems > 0) rc = SP_EPARTIAL;
  } else if (!aside) {
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "recovery into '%s' failed: %s; the spill files are unchanged", out_path,
            sp_strerror(rc));
  }
  if (tmp[0]) unlink(tmp);
  /* Files of other runs (one per rank and run): the next earlier run. */
  if (nolder > 0 && (rc == 0 || rc == SP_EPARTIAL || rc == SP_ESPILL || aside)) {
    int rc2 = sp_merge_earlier(paths, older, nolder, base_out, flags, level);
    if (rc == 0 || rc == SP_ESPILL) rc = rc2;
  }
  free(older);
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
