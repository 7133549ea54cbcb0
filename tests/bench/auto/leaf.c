/* leaf.c - the function timed by bench_auto, compiled twice: with
 * -finstrument-functions (LEAF = leaf_instr) and without (leaf_plain). */
#include "leaf.h"

__attribute__((noinline)) int LEAF(int x) {
  __asm__ volatile("" : "+r"(x)); /* keep the call and its body */
  return x + 1;
}
