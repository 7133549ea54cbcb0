/* layout_meta.h - run metadata and source locations in the layout. */
#ifndef SP_LAYOUT_META_H
#define SP_LAYOUT_META_H

#include <hdf5.h>

#include "run_meta.h"

struct sp_rank_plan;
struct sp_plan_region;
/* The users' keys in /metadata (g): each from the lowest rank that set it. */
SP_HIDDEN int sp__layout_user_meta(hid_t g, const struct sp_rank_plan *plans, int nplans);
/* rank<N>/metadata with the keys whose value on rank r differs from the one
 * in /metadata (none: no group). */
SP_HIDDEN int sp__layout_rank_meta(hid_t rg, const struct sp_rank_plan *plans, int nplans, int r);
/* Every entry of l as an attribute of g (the aggregate file's /metadata). */
SP_HIDDEN int sp__layout_meta_list(hid_t g, const sp_meta_list_t *l);
/* Bytes the metadata and source attributes of plan p may take in the file
 * (a bound, for the room layout.c takes before writing). */
SP_HIDDEN int64_t sp__layout_meta_bytes(const struct sp_rank_plan *p);
/* source_file and source_lineno on a region group, where known. */
SP_HIDDEN int sp__layout_region_source(hid_t g, const struct sp_plan_region *r);

#endif
