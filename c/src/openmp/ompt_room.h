/* ompt_room.h - what the files of the openmp room share (never installed).
 *
 * ompt_tool.c answers the runtime (ompt_start_tool) and registers the
 * callbacks of ompt_events.c (ompt_events.h), which keeps each thread's
 * record; ompt_names.c (ompt_names.h) maps a construct and its code
 * pointer to a region handle, cached in that record. */
#ifndef SP_OMPT_ROOM_H
#define SP_OMPT_ROOM_H

#include <stdint.h>

/* omp-tools.h is taken from clang's resource directory by its full path
 * (c/CMakeLists.txt): that directory also holds clang's own stddef.h and
 * friends, which must not shadow the compiler's on the include path. */
#include SP_OMPT_HEADER

#include "sp_internal.h"

/* The constructs recorded, each a region "<name> @ <location>". */
#define SP_OMP_KINDS(XX)                                                                         \
  XX(PARALLEL, "omp parallel")                                                                   \
  XX(LOOP, "omp loop")                                                                           \
  XX(SECTIONS, "omp sections")                                                                   \
  XX(SINGLE, "omp single")                                                                       \
  XX(WORKSHARE, "omp workshare") XX(DISTRIBUTE, "omp distribute") XX(TASKLOOP, "omp taskloop")   \
      XX(SCOPE, "omp scope") XX(BARRIER, "omp barrier") XX(IBARRIER, "omp implicit barrier")     \
          XX(RBARRIER, "omp runtime barrier") XX(TASKWAIT, "omp taskwait")                       \
              XX(TASKGROUP, "omp taskgroup") XX(REDUCTION, "omp reduction") XX(TASK, "omp task") \
                  XX(CRITICAL, "omp critical wait") XX(LOCK, "omp lock wait")                    \
                      XX(ORDERED, "omp ordered wait")
typedef enum sp_omp_kind {
#define SP__XX(id, name) SP_OMP_##id,
  SP_OMP_KINDS(SP__XX)
#undef SP__XX
      SP_OMP_NKINDS
} sp_omp_kind_t;

/* One construct open on a thread. Pushed on every begin the runtime
 * reports, recorded or not, so that each end pops its own begin: a
 * construct begun before sp_setup and ended after it is not stopped. */
typedef struct sp_omp_frame {
  const void *cp;   /* the code pointer that names it (a parallel's for its NULL ones) */
  int32_t h;        /* its region, -1 when not recorded */
  uint16_t kind;    /* an sp_omp_kind_t */
  uint16_t worker;  /* PARALLEL: an implicit task of a worker (index > 0) */
  unsigned session; /* sp__session when started */
} sp_omp_frame_t;

/* A thread's cache entry: (kind, code pointer) -> region of this session. */
typedef struct sp_omp_slot {
  const void *cp;
  int32_t h;
  uint16_t kind;
  unsigned session;
} sp_omp_slot_t;

enum { SP_OMP_DEPTH = 128, SP_OMP_CACHE = 256 /* a power of 2 */ };

/* The tool's record of one thread, its own: no other thread reads it. */
typedef struct sp_omp_thread {
  int32_t depth; /* frames in use */
  int32_t over;  /* begins past SP_OMP_DEPTH, not pushed */
  /* A worker's closing implicit barrier was ended at its begin (ompt_events.c):
   * the late end of that barrier and of its implicit task are skipped. */
  int skip_sync_end, skip_task_end;
  sp_omp_frame_t frames[SP_OMP_DEPTH];
  sp_omp_slot_t cache[SP_OMP_CACHE];
} sp_omp_thread_t;

/* What the tool records, set once in ompt_start_tool (an SP_OPENMP_*);
 * 0 when the runtime did not start the tool. */
extern SP_HIDDEN int sp__omp_level;

#endif
