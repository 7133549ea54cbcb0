/* export_folded.c - --export folded: one line per call path with its
 * exclusive time in ns, "main;step;compute 1234", the input of
 * flamegraph.pl, inferno and speedscope. Paths come from the call tree
 * (sp_reader_tree_*, summed over the selected ranks and threads); paths
 * with no exclusive time are left out, as those tools ignore them. A ';'
 * inside a region name is written as ':' (';' separates the frames). */
#include <stdio.h>
#include <stdlib.h>

#include "exports.h"

/* Writes one frame's name ("a;b" as "a:b"). */
static void sp_folded_frame(const sp_selection_t *sel, const sp_reader_tree_node_t *nd) {
  for (const char *p = sp_reader_region_name(sel->reader, nd->region); *p; p++) {
    /* Valid UTF-8 passes; controls and bad bytes as \xNN (text_safe.c). */
    char one[2] = {*p == ';' ? ':' : *p, '\0'};
    if (*p == ';' || (unsigned char)*p < 0x80)
      sp_text_put(stdout, one, SP_TEXT_PLAIN);
    else {
      size_t k = sp_utf8_seq((const unsigned char *)p);
      if (k == 0) k = 1;
      char seq[5] = {0};
      for (size_t j = 0; j < k && p[j]; j++) seq[j] = p[j];
      sp_text_put(stdout, seq, SP_TEXT_PLAIN);
      p += k - 1;
    }
  }
}

/* Writes the path of node i from its root, frames separated by ';'. The
 * frames are gathered in *up (grown as needed) without recursion: a
 * recursion a million calls deep must not take a million stack frames. */
static int sp_folded_path(const sp_selection_t *sel, const sp_reader_tree_t *t, int i, int **up,
                          size_t *cap) {
  size_t n = 0;
  for (int k = i; k >= 0; k = sp_reader_tree_node(t, k)->parent) {
    if (n == *cap) {
      size_t ncap = *cap ? 2 * *cap : 64;
      int *v = realloc(*up, ncap * sizeof *v);
      if (!v) return SP_EXIT_IO;
      *up = v;
      *cap = ncap;
    }
    (*up)[n++] = k;
  }
  while (n-- > 0) {
    sp_folded_frame(sel, sp_reader_tree_node(t, (*up)[n]));
    if (n > 0) putchar(';');
  }
  return 0;
}

int sp_export_folded(const sp_selection_t *sel) {
  sp_reader_tree_t *t;
  int rc = sp_tree_build(sel, 0, &t);
  if (rc) return rc;
  int n = sp_reader_tree_num_nodes(t);
  int *up = NULL;
  size_t cap = 0;
  for (int i = 0; rc == 0 && i < n; i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    if (!nd->timed || nd->exclusive <= 0) continue;
    rc = sp_folded_path(sel, t, i, &up, &cap);
    if (rc == 0) printf(" %lld\n", (long long)nd->exclusive);
  }
  free(up);
  sp_reader_tree_free(t);
  return rc;
}
