/* spill_read.h - reading a spill file back (finalize and crash recovery). */
#ifndef SP_SPILL_READ_H
#define SP_SPILL_READ_H

#include "sp_internal.h"
#include "run_meta.h"
#include "spill_format.h"

/* Where one EVENTS record's events are. */
typedef struct sp_spill_chunk {
  int32_t region;
  int32_t thread;
  int64_t n;
  int64_t offset; /* file offset of the first event */
  int64_t old;    /* MPI values: 1 for SP_SPILL_MPI_EXTRA (no tag, no comm) */
} sp_spill_chunk_t;

typedef struct sp_spill_file {
  int fd;
  sp_spill_header_t header;
  uint64_t run_id; /* SP_SPILL_RUN; 0 when none (an older writer's file) */
  int32_t rank;    /* -1 when the run never told */
  int32_t layout;  /* SP_SPILL_LAYOUT's SP_LAYOUT_*; -1 when none (an older writer's file) */
  int32_t size;
  int64_t truncated_ns; /* SP_SPILL_TRUNCATED's (the first); 0 when none */
  char **names; /* by handle; NULL where unnamed */
  int32_t nnames;
  sp_calib_t calib;
  sp_clock_offset_t clock[2]; /* SP_SPILL_CLOCK records; valid 0 where none */
  sp_spill_chunk_t *chunks;
  int64_t nchunks;
  sp_spill_chunk_t *xchunks; /* SP_SPILL_MPI_EXTRA(_TC) records (mpi_extra.h), in file order */
  int64_t nxchunks;
  sp_spill_chunk_t *vchunks; /* SP_SPILL_VALUES records: n = payload bytes, in file order */
  int64_t nvchunks;
  sp_meta_list_t meta; /* SP_SPILL_META records, the last of each key */
  char **src_file;     /* SP_SPILL_SOURCE by handle; NULL where none */
  int64_t *src_line;
  int32_t nsrc;
  sp_spill_chunk_t *samples; /* SP_SPILL_SAMPLES records: n and offset used */
  int64_t nsamples_chunks;
  int64_t samples_maxrss;    /* the largest ru_maxrss they recorded, bytes */
  int64_t samples_period_ns; /* 0 when the file holds no samples */
  sp_spill_chunk_t *done;    /* SP_SPILL_MPI_DONE records: n and offset used */
  int64_t ndone_chunks;
  sp_spill_chunk_t *comms;   /* SP_SPILL_MPI_COMMS: region = id, n = size, offset of the ranks */
  int64_t ncomms_chunks;
  int64_t io_off, io_len;    /* the last SP_SPILL_IO_FILES record's payload; io_len 0: none */
  int64_t damaged_bytes;     /* trailing bytes not forming a whole record */
  int head_cut;              /* shorter than its header: the writer died creating it */
  int64_t damaged;           /* records or byte ranges before the tail skipped as damaged */
  int64_t first_damage;      /* file offset of the first of them */
} sp_spill_file_t;

/* Limits a record must keep to be read (anything beyond is damage). */
#define SP_SPILL_MAX_THREADS (1 << 20)
#define SP_SPILL_MAX_HANDLES (1 << 22)

/* Indexes a spill file (reads record heads only). A record that is not
 * whole or not consistent is skipped (counted in damaged) and reading goes
 * on at the next whole record; a torn tail is counted in damaged_bytes.
 * Returns 0, SP_ESPILL when the file does not start with a valid header
 * (not a spill file, or a newer version), SP_EIO or SP_ENOMEM. */
SP_HIDDEN int sp__spill_index(const char *path, sp_spill_file_t *f);
/* Reads events [first, first+count) of a chunk, as raw ticks. */
SP_HIDDEN int sp__spill_read(const sp_spill_file_t *f, const sp_spill_chunk_t *c, int64_t first,
                             int64_t count, sp_event_t *out);
/* Reads values [first, first+count) of an MPI extras chunk into out as
 * sp_mpi_x_t (16 bytes each; an older file's get tag and comm -1). */
SP_HIDDEN int sp__spill_read_x(const sp_spill_file_t *f, const sp_spill_chunk_t *c, int64_t first,
                               int64_t count, void *out);
SP_HIDDEN void sp__spill_free(sp_spill_file_t *f);

#endif
