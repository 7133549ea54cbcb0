/* otf2_export.c - --export otf2 -o DIR: one OTF2 archive per file
 * (DIR/traces.otf2, its traces.def and traces/; several files:
 * DIR/<label>/traces.otf2), written serially through the OTF2 library. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2_internal.h"
#include "output_file.h"

int sp_otf2_available(void) { return 1; }

/* OTF2's own messages go through ours: the first of an export (the cause;
 * the rest follow from it) at once, the others with -v. user: the count. */
static OTF2_ErrorCode sp_otf2_error(void *user, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code, const char *fmt,
                                    va_list va) {
  (void)file, (void)line, (void)function;
  char text[512] = "";
  /* OTF2's format, passed on: clang cannot see it is one (GCC can). */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wformat-nonliteral"
#endif
  if (fmt) vsnprintf(text, sizeof text, fmt, va);
#ifdef __clang__
#pragma clang diagnostic pop
#endif
  int *n = user;
  sp_msg((*n)++ ? SP_VERBOSE : SP_QUIET, "OTF2: %s%s%s", OTF2_Error_GetDescription(code),
         text[0] ? ": " : "", text);
  return code;
}

static OTF2_FlushType sp_pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                   void *callerData, bool final) {
  (void)user, (void)type, (void)loc, (void)callerData, (void) final;
  return OTF2_FLUSH;
}

/* No post-flush callback: with one, OTF2 writes a BUFFER_FLUSH record into
 * the location's events at each flush (every 4 MiB here, see below), which
 * readers show as an event the profile does not have. */
static const OTF2_FlushCallbacks sp_flush = {.otf2_pre_flush = sp_pre_flush,
                                             .otf2_post_flush = NULL};

/* Without memory callbacks OTF2 keeps every chunk of a writer until it is
 * closed: a thread's whole trace in memory (228 MB for 2e7 events).
 * With these, a writer holds at most SP_OTF2_CHUNKS chunks: when they are
 * full, allocate says no and OTF2 flushes them to the file (sp_pre_flush
 * says OTF2_FLUSH) and frees them (free_all), then asks again. Each
 * buffer's chunks are a list kept in its perBufferData. */
#define SP_OTF2_CHUNK (1024 * 1024)
#define SP_OTF2_CHUNKS 4
/* Chunks given back by OTF2 kept for the next ones (at most this many
 * bytes): freed, glibc handed the memory back to the kernel (a chunk is
 * above its mmap threshold), and each new chunk faulted all its pages in
 * again as OTF2 cleared it (memset): the 4 MiB definition chunk of each
 * location's local definitions, closed one after the other, was half the
 * export's page faults. */
#define SP_OTF2_POOL ((size_t)8 * 1024 * 1024)

typedef struct sp_chunk {
  struct sp_chunk *next;
  int count;     /* chunks in the list from here (kept in the head) */
  uint32_t size; /* bytes OTF2 asked for */
} sp_chunk_t;

/* The archive's pool of free chunks (its memory callbacks' user data). */
typedef struct sp_pool {
  sp_chunk_t *free;
  size_t bytes;
} sp_pool_t;

static void *sp_chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **list,
                            uint64_t size) {
  (void)loc;
  sp_pool_t *pool = user;
  sp_chunk_t *head = *list;
  /* Global definitions are written once and stay small: never refused. */
  if (head && head->count >= SP_OTF2_CHUNKS && type == OTF2_FILETYPE_EVENTS) return NULL;
  /* The list's link sits in a header before the chunk OTF2 is given. */
  sp_chunk_t *c = pool->free;
  if (c && c->size == size) {
    pool->free = c->next;
    pool->bytes -= size;
  } else {
    c = size <= UINT32_MAX ? malloc(sizeof(max_align_t) + (size_t)size) : NULL;
    if (!c) return NULL;
    c->size = (uint32_t)size;
  }
  c->next = head;
  c->count = head ? head->count + 1 : 1;
  *list = c;
  return (char *)c + sizeof(max_align_t);
}

static void sp_chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **list,
                              bool final) {
  (void)type, (void)loc, (void) final;
  sp_pool_t *pool = user;
  for (sp_chunk_t *c = *list, *next; c; c = next) {
    next = c->next;
    if (pool->bytes + c->size <= SP_OTF2_POOL) {
      c->next = pool->free;
      pool->free = c;
      pool->bytes += c->size;
    } else {
      free(c);
    }
  }
  *list = NULL;
}

static void sp_pool_free(sp_pool_t *pool) {
  for (sp_chunk_t *c = pool->free, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  pool->free = NULL;
  pool->bytes = 0;
}

static const OTF2_MemoryCallbacks sp_memory = {.otf2_allocate = sp_chunk_alloc,
                                               .otf2_free_all = sp_chunk_free_all};

/* 0 when the file has stamps to export; else explains and returns USAGE.
 * Regions without stamps (count-only) next to stamped ones are left out. */
static int sp_stamps_check(const sp_selection_t *sel) {
  int stamped = 0, bare = 0, aggregate = 0;
  for (int i = 0; i < sel->nlanes; i++) {
    sp_reader_info_t info;
    sp_reader_aggregate_t agg;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    sp_reader_aggregate(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &agg);
    aggregate |= agg.present;
    if (info.has_times)
      stamped++;
    else if (info.num_calls > 0)
      bare++;
  }
  if (aggregate || stamped == 0) {
    sp_msg(SP_QUIET,
           "%s: an aggregate profile (call counts and totals, no start and end stamps): "
           "an OTF2 trace needs each call's stamps",
           sel->file);
    return SP_EXIT_USAGE;
  }
  if (bare)
    sp_msg(SP_NORMAL, "%s: %d (region, rank) pair%s without stamps (count-only) left out",
           sel->file, bare, bare == 1 ? "" : "s");
  return 0;
}

/* DIR for one file, DIR/<label> (a '/' in the label as '_') for several. */
static char *sp_archive_dir(const char *outdir, const char *label, int nfiles) {
  size_t n = strlen(outdir) + strlen(label) + 2;
  char *dir = malloc(n);
  if (!dir) return NULL;
  if (nfiles == 1) {
    snprintf(dir, n, "%s", outdir);
    return dir;
  }
  snprintf(dir, n, "%s/%s", outdir, label);
  for (char *p = dir + strlen(outdir) + 1; *p; p++)
    if (*p == '/') *p = '_';
  return dir;
}

/* Archives given up after an OTF2 error (otf2_internal.h) and the pools
 * of their chunks, still pointed to: they are never closed or freed (OTF2
 * keeps its writers' state in the chunks), and a leak checker need not
 * report them. */
static struct {
  OTF2_Archive *archive;
  sp_pool_t pool;
} sp_abandoned[16];
static int sp_nabandoned;

static int sp_archive_write(sp_otf2_run_t *run, const char *dir, const char *label) {
  OTF2_Archive *ar =
      OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, SP_OTF2_CHUNK, 4 * 1024 * 1024,
                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar) return SP_EXIT_IO;
  run->archive = ar;
  sp_pool_t pool = {NULL, 0};
  char creator[128];
  snprintf(creator, sizeof creator, "%s %s", SP_PROG, sp_reader_version_string());
  int ok = OTF2_Archive_SetFlushCallbacks(ar, &sp_flush, NULL) == OTF2_SUCCESS &&
           OTF2_Archive_SetMemoryCallbacks(ar, &sp_memory, &pool) == OTF2_SUCCESS &&
           OTF2_Archive_SetSerialCollectiveCallbacks(ar) == OTF2_SUCCESS &&
           OTF2_Archive_SetCreator(ar, creator) == OTF2_SUCCESS &&
           OTF2_Archive_SetDescription(ar, run->sel->file) == OTF2_SUCCESS &&
           OTF2_Archive_OpenEvtFiles(ar) == OTF2_SUCCESS;
  int rc = ok ? sp__otf2_properties(run) : SP_EXIT_IO;
  if (rc == 0) rc = sp__otf2_events(run);
  if (rc != 0 && *run->otf2_errors > 0) { /* abandoned, not closed (otf2_internal.h) */
    /* Nothing calls into it again; its files go (the caller). */
    const int k = sp_nabandoned++ % 16;
    sp_abandoned[k].archive = ar;
    sp_abandoned[k].pool = pool;
    run->archive = NULL;
    return rc;
  }
  if (ok && OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS && rc == 0) rc = SP_EXIT_IO;
  /* Every location needs its (empty) local definitions file. */
  if (rc == 0 && OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS) rc = SP_EXIT_IO;
  for (int i = 0; rc == 0 && i < run->nlocs; i++) {
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)i);
    if (!w || OTF2_Archive_CloseDefWriter(ar, w) != OTF2_SUCCESS) rc = SP_EXIT_IO;
  }
  if (rc == 0 && OTF2_Archive_CloseDefFiles(ar) != OTF2_SUCCESS) rc = SP_EXIT_IO;
  if (rc == 0) rc = sp__otf2_defs(run, label);
  if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && rc == 0) rc = SP_EXIT_IO;
  sp_pool_free(&pool);
  run->archive = NULL;
  return rc;
}

/* The archive in tmp dropped (a pair was met out of order: the merges
 * did not scan), written again into a new tmp with scanned merges. */
static int sp_archive_rewrite(sp_otf2_run_t *run, const char *dir, char *tmp, size_t cap,
                              const char *label) {
  sp_msg(SP_VERBOSE,
         "%s: a region's calls are out of order (recursion, or threads stored out of id order): "
         "writing the archive again, each pair scanned first",
         run->sel->file);
  sp__otf2_place_abort(tmp);
  free(run->locs);
  sp__otf2_values_free(run);
  sp__otf2_comms_free(run);
  run->locs = NULL;
  run->nlocs = run->cap = 0;
  run->calls = run->moved = run->mpi_events = 0;
  run->comms.max_member = -1;
  run->scan = 1;
  int rc = sp__otf2_place_begin(dir, tmp, cap);
  if (rc) {
    tmp[0] = '\0'; /* nothing of ours there to remove */
    return rc;
  }
  rc = sp_archive_write(run, tmp, label);
  return rc == SP_OTF2_RESCAN ? SP_EXIT_IO : rc; /* (scanned merges never say so) */
}

/* t0 + s seconds in ns, saturated (a window edge far beyond any stamp). */
static int64_t sp_window_edge(int64_t t0, double s) {
  int64_t t;
  if (!(s * 1e9 < 9.2e18) || __builtin_add_overflow(t0, (int64_t)(s * 1e9), &t)) return INT64_MAX;
  return t;
}

static int sp_export_one(const sp_selection_t *sel, const char *dir, const char *label,
                         const sp_options_t *o) {
  int rc = sp_stamps_check(sel);
  if (rc) return rc;
  if (sp_output_mkdirs(dir) != 0) {
    sp_msg(SP_QUIET, "cannot create %s: %s", dir, strerror(errno));
    return SP_EXIT_IO;
  }
  if ((rc = sp__otf2_place_check(dir)) != 0) return rc;
  sp_otf2_run_t run = {.sel = sel, .comms = {.max_member = -1}};
  int nreg = sp_reader_num_regions(sel->reader);
  run.region_def = malloc((size_t)(nreg ? nreg : 1) * sizeof *run.region_def);
  if (!run.region_def) return SP_EXIT_IO;
  /* Written beside, then moved into place (otf2_place.c). */
  char tmp[4200];
  if ((rc = sp__otf2_place_begin(dir, tmp, sizeof tmp)) != 0) {
    free(run.region_def);
    return rc;
  }
  for (int g = 0; g < nreg; g++) run.region_def[g] = -1;
  for (int i = 0; i < sel->nregions; i++) run.region_def[sel->regions[i]] = i;
  /* --start-time / --end-time: seconds after the first start, as the charts. */
  run.win0 = o->start_time > 0 ? sp_window_edge(sel->t0, o->start_time) : INT64_MIN;
  run.win1 = o->end_time > 0 ? sp_window_edge(sel->t0, o->end_time) : INT64_MAX;
  run.base = sel->t0 < 0 ? sel->t0 : 0;
  int nerr = 0;
  run.otf2_errors = &nerr;
  OTF2_ErrorCallback former = OTF2_Error_RegisterCallback(sp_otf2_error, &nerr);
  rc = sp_archive_write(&run, tmp, label);
  if (rc == SP_OTF2_RESCAN) rc = sp_archive_rewrite(&run, dir, tmp, sizeof tmp, label);
  OTF2_Error_RegisterCallback(former, NULL);
  if (rc == 0 && run.calls == 0) {
    sp_msg(SP_QUIET, "%s: no call overlaps the --start-time/--end-time window", sel->file);
    rc = SP_EXIT_DATA;
  }
  if (rc == 0) rc = sp__otf2_place_commit(tmp, dir);
  if (rc != 0) {
    /* No half archive left behind; an earlier one stays as it was. */
    sp_msg(SP_QUIET, "%s: no OTF2 archive written", dir);
    sp__otf2_place_abort(tmp);
  }
  if (rc == 0 && run.moved)
    sp_msg(SP_QUIET,
           "%s: %lld of %lld calls overlap a call of their thread without nesting in it: "
           "written to extra locations 'thread T overlap N'",
           sel->file, (long long)run.moved, (long long)run.calls);
  if (rc == 0)
    sp_msg(SP_VERBOSE, "%s: %lld calls on %d locations in %s/traces.otf2", sel->file,
           (long long)run.calls, run.nlocs, dir);
  free(run.region_def);
  free(run.locs);
  sp__otf2_values_free(&run);
  sp__otf2_comms_free(&run);
  return rc;
}

int sp_otf2_export_files(const sp_selection_t *sels, const char *const *labels, int nfiles,
                         const sp_options_t *o) {
  int rc = 0;
  for (int k = 0; rc == 0 && k < nfiles; k++) {
    char *dir = sp_archive_dir(o->outdir, labels[k], nfiles);
    rc = dir ? sp_export_one(&sels[k], dir, labels[k], o) : SP_EXIT_IO;
    free(dir);
  }
  return rc;
}
