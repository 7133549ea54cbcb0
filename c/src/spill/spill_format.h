/*
 * spill_format.h - the per-rank spill file: an append-only log of records.
 *
 * Why not HDF5 (as the reference tool uses): an HDF5 file whose writer is
 * killed mid-run can be unreadable (its metadata lives in a cache until
 * close). An append-only log written with one writev per record is
 * readable after a SIGKILL at any moment: every record before the last is
 * complete, and a torn last record is detected by its length and trailer
 * and ignored. Stamps are raw clock ticks plus calibration records, so
 * recovery converts them exactly as finalize does.
 *
 * Record: sp_spill_rec_head_t, `len` payload bytes, then uint32 SP_SPILL_TRAILER.
 * Native byte order (spill files are read back on the same machine type).
 */
#ifndef SP_SPILL_FORMAT_H
#define SP_SPILL_FORMAT_H

#include <stdint.h>

#define SP_SPILL_MAGIC 0x31525053u   /* "SPR1" */
#define SP_SPILL_TRAILER 0x444E4553u /* "SEND" */
#define SP_SPILL_VERSION 1u

typedef enum sp_spill_type {
  SP_SPILL_HEADER = 1,  /* sp_spill_header_t: first record of a file */
  SP_SPILL_RANK = 2,    /* int32 rank, int32 size: once MPI tells them */
  SP_SPILL_REGION = 3,  /* int32 handle, uint32 len, name bytes: before its first events */
  SP_SPILL_EVENTS = 4,  /* sp_spill_events_t then n x {int64 start, int64 end} ticks */
  SP_SPILL_CALIB = 5,   /* int64 ticks, int64 ns: a calibration point */
  SP_SPILL_CLOCK = 6,   /* sp_spill_clock_t: a clock offset to rank 0 (clock_offset.c) */
  SP_SPILL_SAMPLES = 7, /* sp_spill_samples_t then n x {int64 t_ns, rss, cpu_ns} (sampler.c) */
  /* sp_spill_events_t then n x sp_mpi_x_t {int64 bytes, int32 peer, int32 0}: the
   * values of an MPI call region's next n calls on that thread (mpi_extra.h) */
  SP_SPILL_MPI_EXTRA = 10, /* written by older versions; read still */
  /* The same with n x sp_mpi_x_t {uint64 bytes << 16 | comm + 1, int32 peer,
   * tag}, 16 bytes each: a new kind, so older readers skip it instead of
   * reading the first word as bytes */
  SP_SPILL_MPI_EXTRA_TC = 11,
  /* int64 n, then n x sp_mpi_done_t (56 bytes): requests completed by
   * waits and tests (mpi_extra.h). 28-31 are the MPI matching records'. */
  SP_SPILL_MPI_DONE = 28,
  /* int32 id, int32 size, then size x int32 world ranks: one communicator
   * of the MPI calls' ids (mpi_extra.h sp__mpi_comm_set), before the first
   * events spilled after it was made, so a merge writes rank<N>/mpi's
   * comm_sizes and comm_members as finalize does. */
  SP_SPILL_MPI_COMMS = 29,
  /* Run metadata and source locations (run_meta.c, region_source.c); far
   * from the numbers above so that other new kinds do not collide. Readers
   * that do not know a kind skip it. */
  SP_SPILL_META = 16,   /* uint32 kind, key length, value length, 0; key, value bytes */
  SP_SPILL_SOURCE = 17, /* int32 handle, uint32 length, int64 line; file name bytes */
  /* uint64 run id (sp_state_t.run_id): part of a file's head, written with
   * its header before the file is named. A record, not a header field, so
   * that older merge tools still read these files and this one reads theirs
   * (no RUN record: run id 0, unknown). */
  SP_SPILL_RUN = 18,
  /* int32 SP_LAYOUT_* (sp_config.layout as the run set it), int32 0: part
   * of a file's head, so a merge writes the layout the run asked for (no
   * LAYOUT record: an older writer's file, the per-rank layout). */
  SP_SPILL_LAYOUT = 19,
  /* io_format.h's blob: the rank's per-file I/O records (profile_io) when
   * the program ended without sp_finalize; the last one of a file wins. */
  SP_SPILL_IO_FILES = 24,
  /* sp_spill_values_t then its payload: values per call (call_values.c,
   * docs/values.md); `what` says which of the three kinds below */
  SP_SPILL_VALUES = 20,
  /* int64 CLOCK_MONOTONIC ns: SCOPE_PROFILER_TRACE_MAX_MB truncated the
   * trace then (the rank's trace_truncated_at); written at the truncation
   * and by every later spill write until one succeeds, the first one wins */
  SP_SPILL_TRUNCATED = 33
} sp_spill_type_t;

typedef struct sp_spill_rec_head {
  uint32_t magic; /* SP_SPILL_MAGIC */
  uint32_t type;  /* sp_spill_type_t */
  uint64_t len;   /* payload bytes */
} sp_spill_rec_head_t;

typedef struct sp_spill_header {
  uint32_t version;   /* SP_SPILL_VERSION */
  uint32_t clock_tsc; /* 1: ticks are TSC and need CALIB records; 0: ticks are ns */
  int64_t pid;
  int64_t wall_time; /* seconds since the epoch at the first flush */
  char host[64];     /* NUL-terminated */
} sp_spill_header_t;

typedef struct sp_spill_clock {
  int32_t which;     /* 0: measured after sp_setup, 1: at sp_finalize */
  int32_t pad;       /* 0 */
  int64_t offset_ns; /* this rank's CLOCK_MONOTONIC minus rank 0's, ns */
  int64_t at_ns;     /* when, on this rank's clock, ns */
  int64_t error_ns;  /* error bound, ns */
} sp_spill_clock_t;

typedef struct sp_spill_events {
  int32_t region; /* handle, named by an earlier REGION record */
  int32_t thread; /* thread number within the rank */
  int64_t n;      /* events following */
} sp_spill_events_t;

/* SCOPE_PROFILER_SAMPLE_MS: samples of the process's RSS and CPU time;
 * times are CLOCK_MONOTONIC ns (never ticks), so no calibration applies. */
typedef struct sp_spill_samples {
  int64_t n;         /* samples following */
  int64_t maxrss;    /* getrusage ru_maxrss when written, bytes */
  int64_t period_ns; /* the sampling period */
} sp_spill_samples_t;

/* SP_SPILL_VALUES: one head, then
 *   SP_VREC_KEY:    the key's name (len bytes): key `key` of `region` is
 *                   `name`, of kind `kind` (SP_VKIND_*: its first value's)
 *   SP_VREC_VALUES: n x sp_spill_value_t of thread `thread`, then len bytes
 *                   of strings (a string value's v is its offset there,
 *                   NUL-terminated), in the order they were set: a later
 *                   value of the same call and key replaces an earlier one
 *   SP_VREC_LOST:   n values of `region` dropped (65th key, no memory) */
enum { SP_VREC_KEY = 1, SP_VREC_VALUES = 2, SP_VREC_LOST = 3 };
enum { SP_VKIND_INT = 1, SP_VKIND_REAL = 2, SP_VKIND_STR = 3 };

typedef struct sp_spill_values {
  uint32_t what; /* SP_VREC_* */
  int32_t thread;
  int32_t region;
  int32_t key;
  int32_t kind;
  int32_t pad; /* 0 */
  int64_t n;
  int64_t len; /* payload bytes after the entries (names, strings) */
} sp_spill_values_t;

/* One value: the call is event `index` (0 = its first, spilled ones
 * included) of `region` on the record's thread. */
typedef struct sp_spill_value {
  int32_t region;
  int16_t key;  /* the region's key number, 0..63 */
  uint8_t kind; /* SP_VKIND_* of this value */
  uint8_t pad;
  int64_t index;
  union {
    int64_t i;
    double d;
    int64_t s; /* offset of the string */
  } v;
} sp_spill_value_t;

#endif /* SP_SPILL_FORMAT_H */
