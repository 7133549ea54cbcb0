/* hdf5_room.c - memory left for HDF5 before finalize enters it.
 *
 * HDF5 1.10 does not check many of its allocations: under `ulimit -v` a
 * little below what the layout needs, H5Fcreate dies of SIGSEGV in
 * H5AC_create, or H5Dcreate2 in its free lists halfway through the layout,
 * or its first call (H5Eget_auto2, which starts the library), or its exit
 * handler on a file that a failed call left half open (issue 36, item 15).
 * So before HDF5's first call in finalize, and again before the layout,
 * the address space HDF5 will want is mapped once (never touched,
 * MAP_NORESERVE) and given back: if the mapping is refused, finalize
 * returns SP_ENOMEM without entering HDF5 and keeps the spill files for
 * scope-profiler-merge (run without the limit).
 *
 * What the layout took, measured with prlimit --as sweeps (VmSize at the
 * layout against the smallest limit that wrote the file; HDF5 1.10.8,
 * serial driver): 2.5 MB for 10 regions, 17 MB for 1000, 37 MB for 3000,
 * from 5 to more than 36 MB for 10,000 (HDF5's metadata cache is capped
 * at 32 MB; free memory left in malloc's heap counts too). So 8 MiB plus
 * 12 KiB per region of all ranks, at most 8 + 48 MiB: a little more than
 * needed (the mapping does not see malloc's free memory), never less in
 * the sweeps (tests/reliability/finalize_fail.py). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_NORESERVE, MAP_ANONYMOUS */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "hdf5_room.h"

#define SP_ROOM_BASE ((uint64_t)8 << 20)
#define SP_ROOM_PER_REGION ((uint64_t)12 << 10)
#define SP_ROOM_MAX_REGIONS ((uint64_t)48 << 20)

static uint64_t sp_hdf5_room_need(const sp_rank_plan_t *plans, int nplans) {
  uint64_t regions = 0;
  for (int r = 0; plans && r < nplans; r++)
    regions += plans[r].nregions > 0 ? (uint64_t)plans[r].nregions : 0;
  uint64_t per = regions * SP_ROOM_PER_REGION;
  return SP_ROOM_BASE + (per < SP_ROOM_MAX_REGIONS ? per : SP_ROOM_MAX_REGIONS);
}

int sp__hdf5_room(const sp_rank_plan_t *plans, int nplans) {
  const uint64_t need = sp_hdf5_room_need(plans, nplans);
  int saved = errno;
  void *p = mmap(NULL, (size_t)need, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
    munmap(p, (size_t)need);
    errno = saved;
    return 0;
  }
  struct rlimit rl;
  char limit[96] = "";
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    snprintf(limit, sizeof limit, " under the address space limit (ulimit -v) of %.1f MB",
             (double)rl.rlim_cur / 1e6);
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
          "not enough memory left for HDF5 to write the profile: it needs about %.1f MB more%s"
          " (HDF5 would crash where an allocation fails)",
          (double)need / 1e6, limit);
  errno = saved;
  return SP_ENOMEM;
}
