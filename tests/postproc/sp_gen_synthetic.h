/* sp_gen_synthetic.h - deterministic large profiles for tests and the benchmark. */
#ifndef SP_GEN_SYNTHETIC_H
#define SP_GEN_SYNTHETIC_H

#include <stdint.h>

/* Writes path in the documented layout with nranks x nregions lanes and
 * about total intervals spread evenly: each rank runs iterations in which
 * every region is called once, for 60 % to 90 % of its slot (fixed LCG,
 * so the file is the same on every run). Returns 0 or -1. */
int sp_gen_synthetic(const char *path, int nranks, int nregions, int64_t total);

#endif
