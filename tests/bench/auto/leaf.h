/* leaf.h - the two builds of leaf.c. */
#ifndef SP_BENCH_LEAF_H
#define SP_BENCH_LEAF_H
int leaf_instr(int x);
int leaf_plain(int x);
#endif
