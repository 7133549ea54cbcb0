/* io_format.h - a rank's per-file I/O records (profile_io) as one blob.
 *
 * The io room (c/src/io/io_files.c) keeps one record per file; at finalize
 * each rank packs its table into this blob, rank 0 gathers them and the
 * write room writes rank<N>/io/files/... and io_files/ (io_write.c;
 * docs/io.md, docs/the-file.md). The same blob is a spill record
 * (SP_SPILL_IO_FILES): the last one of a spill file is the rank's table at
 * its last flush, for scope-profiler-merge. */
#ifndef SP_IO_FORMAT_H
#define SP_IO_FORMAT_H

#include <stdint.h>

/* What a call does to its file, for the record's counts and times. The
 * end of an MPI-IO split collective (READ_END, WRITE_END) adds its time to
 * the read or write time, not an operation: its begin counted that. */
enum {
  SP_IO_K_META = 0,
  SP_IO_K_READ = 1,
  SP_IO_K_WRITE = 2,
  SP_IO_K_SEEK = 3,
  SP_IO_K_SYNC = 4,
  SP_IO_K_READ_END = 5,
  SP_IO_K_WRITE_END = 6
};
/* files/apis bits. */
enum { SP_IO_API_POSIX = 1, SP_IO_API_STDIO = 2, SP_IO_API_MPIIO = 4 };

#define SP_IO_NBINS 10  /* the access-size histogram's buckets (Darshan's) */
#define SP_IO_OP_MAX 32 /* a region name kept for the slowest call, NUL included */
#define SP_IO_BLOB_MAGIC 0x31656c69666f6973ll /* "siofile1" */

/* One file's record: constant size, whatever the calls. */
typedef struct sp_io_file_rec {
  int64_t opens, reads, writes, seeks, syncs, meta_ops;
  int64_t bytes_read, bytes_written, max_offset; /* max_offset -1: unknown */
  int64_t read_ns, write_ns, meta_ns;
  int64_t first_ns, last_ns; /* CLOCK_MONOTONIC ns; first -1 before any call */
  int64_t slowest_ns, slowest_start_ns;
  int64_t mmaps;
  int64_t hist[SP_IO_NBINS];
  int32_t apis, pad;
  char slowest_op[SP_IO_OP_MAX];
} sp_io_file_rec_t;

/* The blob: head, nfiles records, then nfiles NUL-terminated names. */
typedef struct sp_io_blob_head {
  int64_t magic;
  int64_t nfiles;
  int64_t names_len;
} sp_io_blob_head_t;

/* The upper bounds (exclusive) of the buckets, as rank<N>/io@size_bins. */
static const int64_t sp_io_size_bins[SP_IO_NBINS] = {
    100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824, INT64_MAX};

static inline int sp_io_size_bin(int64_t bytes) {
  int b = 0;
  while (b < SP_IO_NBINS - 1 && bytes >= sp_io_size_bins[b]) b++;
  return b;
}

#endif
