/* region_source.h - where in the source each region is (sp_region_at):
 * kept by handle beside the region table, put into the spill file. */
#ifndef SP_REGION_SOURCE_H
#define SP_REGION_SOURCE_H

#include "sp_internal.h"

/* The location a region was first registered at (sp_region_at), or 0. */
SP_HIDDEN int sp__source_get(int32_t h, const char **file, int64_t *line);
/* Under the state lock with the spill file open: the SOURCE record of h
 * once (after its REGION record). */
SP_HIDDEN int sp__source_spill(int32_t h, int (*rec)(uint32_t type, const void *p, size_t n));
SP_HIDDEN void sp__source_reset(void); /* with the region table */
/* Keeps file:line for h unless h has one (region_at.c); SP_ENOMEM. */
SP_HIDDEN int sp__source_set(int32_t h, const char *file, size_t flen, int64_t line);
/* The SOURCE payload's parts: handle, line and file name (not NUL-ended). */
SP_HIDDEN int sp__source_from_spill(const char *p, size_t n, int32_t *h, int64_t *line,
                                    const char **file, size_t *flen);

#endif
