/* export_otf2.h - --export otf2: the profile as an OTF2 trace (Vampir,
 * Scalasca, the Score-P tools), written through the OTF2 library. Built
 * only when CMake finds OTF2 (SCOPE_PROFILER_ENABLE_OTF2); otherwise
 * otf2_none.c answers. Never installed. */
#ifndef SP_EXPORT_OTF2_H
#define SP_EXPORT_OTF2_H

#include "pproc.h"

/* 1 when this build can write OTF2, else 0 (--export otf2 is then a usage
 * error naming the missing library). */
int sp_otf2_available(void);

/* Writes one archive per file: o->outdir/traces.otf2 for one file,
 * o->outdir/<label>/traces.otf2 for several. Returns an SP_EXIT_* code:
 * USAGE for an aggregate file (no stamps), IO when the archive cannot be
 * written, DATA for a file that cannot be read. */
int sp_otf2_export_files(const sp_selection_t *sels, const char *const *labels, int nfiles,
                         const sp_options_t *o);

#endif
