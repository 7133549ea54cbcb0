/* reader_internal.h - structures shared by the reader's source files; never installed. */
#ifndef SP_READER_INTERNAL_H
#define SP_READER_INTERNAL_H

#include <hdf5.h>

#include "scope_profiler_reader.h"

/* One region group on one rank, as found at open time. */
typedef struct sp_rank_region {
  int region;          /* global region index (after sorting) */
  char *link;          /* HDF5 link name under rank<N>/regions */
  int has_num_calls;   /* 1 if the num_calls attribute exists */
  int64_t num_calls;   /* num_calls attribute */
  int has_times;       /* 1 if start_times and end_times exist */
  int has_tid;         /* 1 if thread_ids exists */
  int64_t n;           /* intervals (length of start_times) */
  int64_t first_start; /* earliest start, ns; INT64_MAX without intervals */
  int64_t offset;      /* columnar layout: first event of the pair in the events columns */
} sp_rank_region_t;

typedef struct sp_rank {
  int id;                     /* N of rank<N> */
  hid_t regions_gid;          /* rank<N>/regions kept open (opening by path costs ~0.1 ms), or -1 */
  int nregions;               /* regions on this rank */
  sp_rank_region_t *regions;  /* sorted by global region index once open completes */
  char *likwid_group;         /* group attribute of rank<N>/likwid ("" if none), or NULL */
} sp_rank_t;

typedef struct sp_region {
  char *name;          /* decoded name (owned) */
  int64_t first_start; /* earliest start over all ranks, ns */
  int old;             /* index before sorting, to renumber the rank records */
} sp_region_t;

struct sp_reader {
  hid_t file;
  int schema;          /* root attribute scope_profiler_schema, 0 if absent */
  int nranks;
  sp_rank_t *ranks;    /* sorted by id */
  int nregions;
  sp_region_t *regions; /* sorted by first start, then name */
  int columnar;         /* the reference tool's schema 2/3 columnar layout (reader_columnar.c) */
  int deltas;           /* schema 3: events/start_deltas and events/durations */
  hid_t col[3];         /* columnar: the start, end (or delta, duration) and thread_ids
                         * datasets, kept open; -1 when absent */
  char errmsg[1024];
};

/* Formats the reader's error message and returns err. */
int sp__reader_fail(sp_reader_t *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Region record of region g on rank index k, or NULL if absent. */
const sp_rank_region_t *sp__reader_find(const sp_reader_t *r, int g, int k);

/* Opens rank<id>/regions/<link> of rr; returns a group id or a negative value. */
hid_t sp__reader_open_region(const sp_reader_t *r, int k, const sp_rank_region_t *rr);

/* Reads a scalar string attribute (fixed or variable length) as a malloc'd
 * string; NULL if absent or not a string. */
char *sp__attr_string(hid_t obj, const char *name);

/* Earliest and latest value of the int64 dataset d of n elements, read in
 * bounded chunks. Returns 0 or SP_READER_EHDF5 / SP_READER_ENOMEM. */
int sp__scan_minmax(hid_t d, int64_t n, int64_t *min, int64_t *max);

/* reader_columnar.c: files whose root says storage_layout "columnar" (the
 * reference tool's schema 2 and 3): one table of events for all ranks and
 * regions, indexed by rank_region_index and region_table. */
int sp__columnar_detect(hid_t file);
int sp__columnar_open(sp_reader_t *r, const char *path);
/* The arrays of one pair: out->start / end / thread_ids allocated, n set. */
int sp__columnar_read(sp_reader_t *r, const sp_rank_region_t *rr, sp_reader_intervals_t *out);
void sp__columnar_close(sp_reader_t *r);

/* reader_nested.c: the links under a rank's regions group; and, for a
 * link without region data, whether it is a level of a name with '/' that
 * the reference tool stored as nested groups ("solver/rhs" ->
 * regions/solver/rhs): then its children's paths are appended to *links
 * (capacity *cap) and *n grows. */
int sp__region_links(sp_reader_t *r, hid_t regions, const char *where, char ***links,
                     size_t *n);
int sp__region_expand(sp_reader_t *r, hid_t regions, const char *path, char ***links, size_t *n,
                      size_t *cap);

/* Silences HDF5's automatic error printing for the enclosing public call:
 * a library must not print, and bad files are an expected input. */
typedef struct sp_h5_quiet {
  H5E_auto2_t func;
  void *data;
} sp_h5_quiet_t;
void sp__h5_quiet_begin(sp_h5_quiet_t *q);
void sp__h5_quiet_end(const sp_h5_quiet_t *q);

#endif
