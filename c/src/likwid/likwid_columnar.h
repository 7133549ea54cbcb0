/* likwid_columnar.h - LIKWID's results in the columnar layout (likwid_columnar.c). */
#ifndef SP_LIKWID_COLUMNAR_H
#define SP_LIKWID_COLUMNAR_H

#include <stdint.h>

#include "sp_internal.h"

/* Adds likwid/... to the finished columnar file at path from nranks
 * ranks' packed results, rank r's at all[offs[r], offs[r + 1]). Rank 0,
 * serial HDF5. 0 or an SP_E code. */
SP_HIDDEN int sp__likwid_columnar_write(const char *path, int nranks, const char *all,
                                        const int64_t *offs);

#endif
