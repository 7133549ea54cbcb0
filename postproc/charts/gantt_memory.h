/* gantt_memory.h - the RSS tracks of the Gantt chart (gantt_memory.c). */
#ifndef SP_GANTT_MEMORY_H
#define SP_GANTT_MEMORY_H

#include "pproc.h"

/* Height of one rank's RSS track, and the gap above the first, pixels. */
#define SP_TRACK_PX 44.0
#define SP_TRACK_GAP_PX 10.0

/* The samples of the selected ranks that have some. */
typedef struct sp_gantt_mem {
  int n;                  /* tracks: selected ranks with samples */
  int *rank;              /* their reader rank indices */
  sp_reader_samples_t *s; /* their samples */
  int64_t max_rss;        /* bytes, over every track: the one y scale */
} sp_gantt_mem_t;

/* Loads the samples of sel's ranks. 0 or an sp_exit_t code (message given). */
int sp_gantt_mem_load(const sp_selection_t *sel, sp_gantt_mem_t *m);
void sp_gantt_mem_free(sp_gantt_mem_t *m);

/* Draws the tracks in the normalized band [y0, y1] under the lanes, x in
 * [vx0, vx1], the window [x0, x1] s since t0 as the lanes'; the time axis
 * (numbers and title) below the last track. */
void sp_gantt_mem_draw(const sp_gantt_mem_t *m, const sp_selection_t *sel, double vx0, double vx1,
                       double y0, double y1, double x0, double x1, int64_t t0);

#endif
