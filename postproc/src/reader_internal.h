/* reader_internal.h - structures shared by the reader's source files; never installed. */
#ifndef SP_READER_INTERNAL_H
#define SP_READER_INTERNAL_H

#include <hdf5.h>

#include "scope_profiler_reader.h"

/* One region group on one rank, as found at open time. A file of 100,000
 * ranks x 50 regions holds 5 million: the fields are ordered so as not to
 * pad (96 bytes, not 136: 200 MB less at that size). */
typedef struct sp_rank_region {
  int region;          /* global region index (after sorting) */
  int has_num_calls;   /* 1 if the num_calls attribute exists */
  int has_times;       /* 1 if start_times and end_times exist */
  int has_tid;         /* 1 if thread_ids exists */
  unsigned agg_have;   /* aggregate layout: SP_READER_AGG_* bits of agg[] stored for the pair */
  char *link;          /* HDF5 link name under rank<N>/regions (NULL: columnar layouts) */
  int64_t num_calls;   /* num_calls attribute */
  int64_t n;           /* intervals (length of start_times) */
  int64_t first_start; /* earliest start, ns; INT64_MAX without intervals */
  int64_t offset;      /* columnar layout: first event of the pair in the events columns */
  union {
    int64_t agg[4];  /* aggregate layout (r->aggregate): total, minimum, maximum, exclusive, ns */
    int64_t addr[3]; /* other layouts: byte offsets in the file of start_times, end_times and
                      * thread_ids for a direct read (reader_direct.c), or 0: read through
                      * H5Dread (no array starts at byte 0: the superblock or a user block does) */
  };
} sp_rank_region_t;

#define SP_REGIONS_LAZY ((hid_t)-2)

typedef struct sp_rank {
  int id;                    /* N of rank<N> */
  hid_t regions_gid;         /* rank<N>/regions kept open (opening by path: postproc/README.md,
                              * "Size"), or -1, or SP_REGIONS_LAZY: read without HDF5
                              * (reader_stab.c), opened by path when a region needs it */
  haddr_t oh;                /* rank<N>'s object header address, or HADDR_UNDEF */
  int nregions;              /* regions on this rank */
  sp_rank_region_t *regions; /* sorted by global region index once open completes */
  char *likwid_group;        /* group attribute of rank<N>/likwid ("" if none), or NULL */
  char *host;                /* hostname attribute, or NULL */
  sp_reader_clock_t clock;   /* offsets to rank 0's clock (reader_clock.c); n = 0: none */
} sp_rank_t;

typedef struct sp_region {
  char *name;              /* decoded name (owned) */
  int64_t first_start;     /* earliest start over all ranks, on rank 0's clock, ns */
  int64_t first_start_raw; /* the same in stamps as recorded */
  int old;                 /* index before sorting, to renumber the rank records */
} sp_region_t;

struct sp_reader {
  hid_t file;
  int schema; /* root attribute scope_profiler_schema, 0 if absent */
  int nranks;
  sp_rank_t *ranks; /* sorted by id */
  int nregions;
  sp_region_t *regions; /* sorted by first start, then name */
  int64_t file_size;    /* bytes of the file at open, to check stored sizes against */
  int clock_raw;        /* sp_reader_set_clock_align(r, 0): stamps as recorded */
  int nhosts;           /* distinct hostname attributes of the ranks */
  int columnar;         /* the reference tool's schema 2/3 columnar layout (reader_columnar.c) */
  int deltas;           /* schema 3: events/start_deltas and events/durations */
  int aggregate;        /* the reference tool's aggregate layout: counts, no events */
  uint64_t phys_bytes;  /* physical memory at open (0: unknown), for sp__direct_alloc */
  int fd;               /* own descriptor of the file for direct reads, or -1 (reader_direct.c) */
  struct sp_dcache
      *dcache;            /* blocks of the file for small direct reads, or NULL (reader_direct.c) */
  struct sp_ohdr *ohdr;   /* dataset headers read by the reader (reader_ohdr.c), or NULL */
  hid_t col[5];           /* columnar: the start, end (or delta, duration), thread_ids,
                           * call_ids and parent_ids datasets, kept open; -1 when absent */
  int64_t col_len[5];     /* columnar: their lengths (elements) */
  int64_t col_addr[5];    /* columnar: their byte offsets for pread (reader_direct.c), or 0 */
  struct sp_colcache *cc; /* columnar: pages of those columns (reader_colcache.c), or NULL */
  struct sp_src_cache *src; /* region sources read so far (reader_source.c), or NULL */
  struct sp_gheap *gheap;   /* the global heap's checks (reader_gheap.c), or NULL when the
                             * file could not be opened for them: then none */
  hid_t heap_id_type;       /* the opaque type heap IDs are read as (reader_heap_ids.c), or -1 */
  char errmsg[1024];
};

/* reader_source.c: frees r->src. */
void sp__source_cache_free(sp_reader_t *r);

/* The reader's few loops that compare or add every stamp (the load's
 * check, the call tree, the duration statistics) are compiled
 * twice where the toolchain can pick at load time (GCC or Clang, x86-64
 * Linux): for AVX2, whose 64-bit compares vectorise, and for the baseline.
 * See docs/performance.md, "the call tree and the -o DIR JSON files". */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define SP_STAMP_LOOP __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SP_STAMP_LOOP
#define SP_STAMP_LOOP
#endif

/* end - start in ns, saturated: end >= start is checked at load, but the
 * stamps of a damaged file can lie more than INT64_MAX apart. */
static inline int64_t sp_duration(int64_t start, int64_t end) {
  uint64_t ud = (uint64_t)end - (uint64_t)start;
  return ud > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ud;
}

/* Formats the reader's error message and returns err. */
int sp__reader_fail(sp_reader_t *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sp_reader_load, with check 0: without the pass that refuses an interval
 * ending before its start, for a caller that checks in its own pass over
 * the stamps and loads again with the check to report what it found. */
int sp__reader_load(sp_reader_t *r, int g, int k, sp_reader_intervals_t *out, int check);

/* Region record of region g on rank index k, or NULL if absent. */
const sp_rank_region_t *sp__reader_find(const sp_reader_t *r, int g, int k);
/* 0 when r is a reader and (g, k) a region and a rank index of it, else
 * SP_READER_EINVAL (said in r's message when r is one). */
int sp__reader_check_pair(sp_reader_t *r, int g, int k);

/* Opens rank<id>/regions/<link> of rr; returns a group id or a negative value. */
hid_t sp__reader_open_region(const sp_reader_t *r, int k, const sp_rank_region_t *rr);

/* Reads a scalar string attribute (fixed or variable length) as a malloc'd
 * string; NULL if absent or not a string, or when its heap ID is damaged
 * (sp__heap_ids_check: then sp__gheap_damaged(r) says why). */
char *sp__attr_string(const sp_reader_t *r, hid_t obj, const char *name);

/* Earliest and latest value of the int64 dataset d of n elements, read in
 * bounded chunks. Returns 0 or SP_READER_EHDF5 / SP_READER_ENOMEM. */
int sp__scan_minmax(hid_t d, int64_t n, int64_t *min, int64_t *max);

/* reader_clock.c: stamps on rank 0's clock. */

/* Reads rank<N>'s clock attributes and hostname into rk. */
void sp__reader_clock_read(const sp_reader_t *r, hid_t rank_group, sp_rank_t *rk);
/* Stamp t of rank index k on rank 0's clock when aligning (or always with
 * force); t itself without offsets. */
int64_t sp__reader_align_at(const sp_reader_t *r, int k, int64_t t, int force);
/* Moves every interval of iv by its rank's offset at its start, when aligning. */
void sp__reader_align_intervals(const sp_reader_t *r, int k, sp_reader_intervals_t *iv);
/* Counts the distinct hostnames into r->nhosts. 0 or SP_READER_ENOMEM. */
int sp__reader_hosts_count(sp_reader_t *r);

/* reader_guard.c: checks against hostile or damaged inputs. */

/* Refuses anything but a regular file (a FIFO would block, a device never
 * end) without blocking, and records its size in r->file_size. Returns 0 or
 * SP_READER_EIO with the message set. */
int sp__file_check(sp_reader_t *r, const char *path);

/* reader_gheap.c: the global heap collections (variable-length data)
 * checked as HDF5 will parse them, lazily. sp__gheap_init, before HDF5
 * opens the file: keeps a descriptor of it (no check when that fails).
 * Returns 0 or SP_READER_ENOMEM. */
int sp__gheap_init(sp_reader_t *r, const char *path);
/* THE guard: every read of variable-length data from a dataset calls it
 * first. The whole-file scan, made once per open file: 0 when every
 * collection is sound, else SP_READER_ELAYOUT with the message set
 * ("PATH: damaged file: the global heap collection at byte N ... is
 * unusable: why"), at this call and every later one. */
int sp__gheap_guard(sp_reader_t *r);
/* The same without the message (for a const reader): 0 or -1. */
int sp__gheap_sound(const sp_reader_t *r);
/* 1 when type t is or holds data HDF5 keeps in the global heap
 * (variable-length strings or sequences, references). */
int sp__gheap_vl_type(hid_t t);
/* sp__gheap_guard when dataset d's type is such (or unknown): before its
 * creation property list is copied (HDF5 converts its fill value then). */
int sp__gheap_dataset_guard(sp_reader_t *r, hid_t d);
/* The scan's why (without the path) once it has failed, else NULL. */
const char *sp__gheap_scan_failed(const sp_reader_t *r);
/* Once the file is open: the base its heap IDs' addresses are relative to. */
void sp__gheap_set_base(sp_reader_t *r);
/* Object idx of the collection at (relative) address addr, that collection
 * checked by the scan's rule when first named: 1 with *size set when it
 * holds it, 0 when the collection is there without it, -1 when there is no
 * collection there, 2 when it could not be judged alone but the whole-file
 * scan passed (no check of the ID), -3 when the whole-file scan failed
 * (sp__gheap_scan_failed says why). Only with r->gheap. */
int sp__gheap_object(const sp_reader_t *r, uint64_t addr, uint32_t idx, uint64_t *size);
/* Notes a damaged heap ID and why (the latest one's why is kept, for the
 * message of the open or of the call that met it); r->gheap is mutable
 * behind a const reader. sp__gheap_damaged: that why, or NULL if none. */
void sp__gheap_damage(const sp_reader_t *r, const char *why);
const char *sp__gheap_damaged(const sp_reader_t *r);
void sp__gheap_free(sp_reader_t *r);

/* reader_heap_ids.c: 0 when HDF5 may read variable-length attribute a of
 * object obj (named name; ftype its file type): every heap ID it holds
 * names an object of a sound collection, of the ID's length; -1 when one
 * does not, or when the file's collections fail the whole-file scan
 * (noted with sp__gheap_damage). 0 too when not variable-length; IDs that
 * cannot be checked one by one (another address size, no memory) take the
 * whole-file scan instead (sp__gheap_guard's). */
int sp__heap_ids_check(const sp_reader_t *r, hid_t obj, hid_t a, hid_t ftype, const char *name);
/* Once the file is open, with r->gheap: the type and conversion that read
 * heap IDs as stored (r->heap_id_type; -1 when they cannot be had). */
void sp__heap_ids_open(sp_reader_t *r);
void sp__heap_ids_close(sp_reader_t *r);
/* reader_metadata.c: the heap IDs of /metadata's attributes, at open (the
 * run's metadata is read later, where a damaged one would only be left
 * out): a damaged one is noted with sp__gheap_damage. */
void sp__metadata_ids_check(const sp_reader_t *r);

/* Kind of link name in g: none, hard or soft (followed), or foreign (an
 * external or user-defined link to another file: never followed). */
enum { SP_LINK_NONE, SP_LINK_LOCAL, SP_LINK_FOREIGN };
int sp__link_kind(hid_t g, const char *name);
/* Length of the 1-D dataset name of g (a local link), -1 when absent or
 * not 1-D. */
int64_t sp__dataset_len(hid_t g, const char *name);
/* Rows [first, first + n) of the 1-D integer dataset name of g, as mem
 * type, into buf; what names the table in the messages. */
int sp__read_int_rows(sp_reader_t *r, hid_t g, const char *what, const char *name, int64_t first,
                      int64_t n, hid_t mem, void *buf);
/* First row of g's int32 column "ranks" (total rows, ascending) whose value
 * is >= id: where a rank's rows of a columnar table begin; -1 on error. */
int64_t sp__ranks_lower(sp_reader_t *r, hid_t g, const char *what, int64_t total, int32_t id);
/* sp__link_kind of each of names[0..n) in kinds, from one pass over g's
 * links when g holds few (a region group), else name by name. */
void sp__link_kinds(hid_t g, const char *const *names, int n, int *kinds);
/* The same, and in addrs[i] the object header address of each hard link
 * found in that pass (HADDR_UNDEF for others, or when asked name by name). */
void sp__link_kinds_at(hid_t g, const char *const *names, int n, int *kinds, haddr_t *addrs);
/* In addrs[i] the object header address of names[i] when it is a hard
 * link of g, from one pass over g's links in name order (names as
 * sp__link_names lists them); HADDR_UNDEF for other links and names. */
void sp__link_addrs(hid_t g, char *const *names, size_t n, haddr_t *addrs);
/* Opens the object whose header is at address at (as a hard link gives it)
 * in loc's file, without looking a name up; a negative value on failure. */
hid_t sp__object_open_at(hid_t loc, haddr_t at);

/* Checks that dataset d (where/name, n elements of elem bytes in the file)
 * keeps its data inside the file (no external storage, not virtual) and
 * that the stored bytes can hold n elements: in full when unfiltered, at
 * most 65536:1 compressed, never more than the file's size. Returns 0 or
 * SP_READER_ELAYOUT / SP_READER_ENOTHDF5 / SP_READER_EHDF5 with the message. */
int sp__dataset_size_check(sp_reader_t *r, hid_t d, const char *where, const char *name, int64_t n,
                           size_t elem);

/* 1 if dataset d keeps its data inside the file (not virtual, no external
 * raw files), else 0. */
int sp__dataset_local(hid_t d);

/* 0 if n elements of elem bytes can be allocated at all (no size_t
 * overflow, not beyond physical memory), else SP_READER_ENOMEM. */
int sp__memory_check(int64_t n, size_t elem);

/* 1 if the HDF5 call that just failed could not lock the file: another
 * process has it open for writing. */
int sp__h5_lock_failed(void);

/* reader_direct.c: arrays read with pread at their offset in the file. */

/* Opens r->fd on path when it is the file HDF5 has open (same device and
 * inode, sec2 driver, size r->file_size) and direct reads are not turned
 * off (SCOPE_PROFILER_READER_DIRECT=0); else leaves r->fd at -1. */
void sp__direct_open(sp_reader_t *r, const char *path);
void sp__direct_close(sp_reader_t *r);
/* Byte offset of dataset d (file type t, n elements of elem bytes) when its
 * bytes in the file are the array in memory type native: contiguous (so
 * unfiltered), fully stored, the same type and byte order, inside the file.
 * Else 0. Call after sp__dataset_size_check accepted d. */
int64_t sp__direct_addr(const sp_reader_t *r, hid_t d, hid_t t, hid_t native, int64_t n,
                        size_t elem);
/* Reads bytes at addr into buf; 0, or SP_READER_EHDF5 on an error or a
 * short read (the file shrank). errno is preserved. */
int sp__direct_read(const sp_reader_t *r, int64_t addr, void *buf, size_t bytes);
/* malloc of n elements of elem bytes when sp__memory_check would allow
 * it, against the physical memory measured once at sp__direct_open (the
 * sysconf calls cost 3% of a Gantt chart of 12,800 lanes). NULL if not. */
void *sp__direct_alloc(const sp_reader_t *r, int64_t n, size_t elem);
/* Earliest and latest of the n int64 at addr, read in bounded chunks.
 * 0, SP_READER_EHDF5 or SP_READER_ENOMEM. */
int sp__direct_minmax(const sp_reader_t *r, int64_t addr, int64_t n, int64_t *min, int64_t *max);

/* reader_ohdr.c: plain datasets' facts read from their object headers
 * (no H5Dopen2). */

/* Sets up r->ohdr when the file allows it (direct reads on, 8-byte
 * addresses and lengths, a little-endian host); else leaves it NULL. */
void sp__ohdr_open(sp_reader_t *r);
void sp__ohdr_close(sp_reader_t *r);
/* 1 when the dataset whose object header is at oh (as a link gives it) is
 * plain (see the file's comment) with integers of elem bytes (8: int64,
 * 4: int32): then *n is its length and *addr the absolute offset of its
 * bytes. 0 when not plain or not known: open it with HDF5. */
int sp__ohdr_dataset(const sp_reader_t *r, haddr_t oh, int elem, int64_t *n, int64_t *addr);
/* 1 once a parse has agreed with HDF5's answers in this file. */
int sp__ohdr_trusted(const sp_reader_t *r);
/* Records whether HDF5 agreed with a parse; on disagreement parsing stops
 * for the file. */
void sp__ohdr_verify(sp_reader_t *r, int agree);
/* The n-byte little-endian unsigned integer at p (HDF5's on-disk
 * integers; reader_ohdr.c, reader_stab.c, reader_gheap.c, reader_heap_ids.c). */
static inline uint64_t sp__le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
/* len bytes (at most 8 KiB) at absolute offset at through the window of
 * reader_ohdr.c, valid until the next call, or NULL (not in the file, or
 * parsing off); the base that the file's relative addresses add to. */
const unsigned char *sp__ohdr_bytes(const sp_reader_t *r, uint64_t at, size_t len);
uint64_t sp__ohdr_base(const sp_reader_t *r);
/* Group symbol tables (reader_stab.c): usable (not turned off by a
 * disagreement), agreed with HDF5 once in this file, and the verdict of
 * a comparison with HDF5's answers (on disagreement parsing them stops). */
int sp__stab_usable(const sp_reader_t *r);
int sp__stab_trusted(const sp_reader_t *r);
void sp__stab_verify(sp_reader_t *r, int agree);

/* reader_stab.c: the group whose object header is at oh (as a link gives
 * it) read from its symbol table when plain (see the file's comment): 1,
 * with kinds[i] SP_LINK_LOCAL and addrs[i] its object header address for
 * each of names[0..n) linked in it (SP_LINK_NONE and HADDR_UNDEF for the
 * absent); 0 when not plain or not readable: open it with HDF5. */
int sp__stab_links(const sp_reader_t *r, haddr_t oh, const char *const *names, int n, int *kinds,
                   haddr_t *addrs);
/* The same group's links, every one: 1 with *names (malloc'd strings,
 * freed by sp__names_free) and *addrs (malloc'd) of *n links in name
 * order (H5Literate's by name, increasing); 0 when not plain, not
 * readable or out of memory: list them with HDF5. */
int sp__stab_list(const sp_reader_t *r, haddr_t oh, char ***names, haddr_t **addrs, size_t *n);
/* 1 when the object header at oh is a plain old-style group's (a symbol
 * table, no attribute: see reader_stab.c). */
int sp__stab_group(const sp_reader_t *r, haddr_t oh);

/* reader_lookup.c: names of the first n links of g in name order, in one
 * pass (H5Literate): an array of *got malloc'd strings (*got < n when the
 * group cannot be read to its end), or NULL. Freed by sp__names_free. */
char **sp__link_names(hid_t g, hsize_t n, hsize_t *got);
void sp__names_free(char **names, hsize_t n);

/* reader_columnar.c: files whose root says storage_layout "columnar" (the
 * reference tool's schema 2 and 3): one table of events for all ranks and
 * regions, indexed by rank_region_index and region_table. */
int sp__columnar_detect(const sp_reader_t *r, hid_t file);
int sp__columnar_open(sp_reader_t *r, const char *path);
/* reader_likwid.c: the groups of a columnar file's likwid/ (none: 0). */
int sp__likwid_columnar_open(sp_reader_t *r);
/* The arrays of one pair: out->start / end / thread_ids allocated, n set. */
int sp__columnar_read(sp_reader_t *r, const sp_rank_region_t *rr, sp_reader_intervals_t *out);
/* Only the call ids (and, if parent_ids is not NULL, the parent ids) of
 * region g on rank index k: *n of them, allocated here; none (*n = 0, NULL)
 * when the pair has no calls or the file no ids. Returns 0,
 * SP_READER_ENOMEM or SP_READER_EHDF5 (no message set). */
int sp__columnar_read_ids(sp_reader_t *r, int g, int k, int64_t *n, int64_t **call_ids,
                          int64_t **parent_ids);
void sp__columnar_close(sp_reader_t *r);

/* reader_colcache.c: n elements of column c (0 to 4, as r->col[]) from
 * offset into out (int64, thread ids int32), through a page cache so that
 * a pair of a few calls costs a copy, not an HDF5 read. The range must lie
 * in the column (r->col_len). Returns 0 or SP_READER_EHDF5. */
int sp__colcache_read(sp_reader_t *r, int c, int64_t offset, int64_t n, void *out);
void sp__colcache_free(sp_reader_t *r);

/* reader_nested.c: the links under a rank's regions group; and, for a
 * link without region data, whether it is a level of a name with '/' that
 * the reference tool stored as nested groups ("solver/rhs" ->
 * regions/solver/rhs): then its children's paths are appended to *links
 * (capacity *cap) and *n grows. */
int sp__region_links(sp_reader_t *r, hid_t regions, const char *where, char ***links, size_t *n);
int sp__region_expand(sp_reader_t *r, hid_t regions, const char *path, char ***links, size_t *n,
                      size_t *cap);

/* Silences HDF5's automatic error printing for the enclosing public call:
 * a library must not print, and bad files are an expected input. */
typedef struct sp_h5_quiet {
  H5E_auto2_t func;
  void *data;
} sp_h5_quiet_t;
/* This tool's aggregate files (reader_agg_hist.c): the length of the 1-D
 * dataset at path (-1 when absent, not 1-D or longer than max), and its n
 * values as int64 (malloc'd; NULL on failure). */
int64_t sp__agg_col_len(hid_t file, const char *path, int64_t max);
int64_t *sp__agg_col_read(hid_t file, const char *path, int64_t n);
/* The n values of the 1-D dataset path as mem (elem bytes each), malloc'd;
 * NULL when it cannot be read. */
void *sp__agg_col_read_as(hid_t file, const char *path, hid_t mem, size_t elem, int64_t n);

void sp__h5_quiet_begin(sp_h5_quiet_t *q);
void sp__h5_quiet_end(const sp_h5_quiet_t *q);

#endif
