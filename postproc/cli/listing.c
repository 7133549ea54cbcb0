/* listing.c - --list: the lanes of the chart as text, in drawing order. */
#include <stdio.h>

#include "pproc.h"

int sp_list_print(const sp_selection_t *sel, sp_table_format_t fmt) {
  static const sp_col_t cols[] = {{"lane", SP_COL_INT, 0},
                                  {"rank", SP_COL_INT, 0},
                                  {"intervals", SP_COL_INT, 0},
                                  {"region", SP_COL_STR, 0}};
  sp_table_t tb;
  sp_table_begin(&tb, fmt, cols, 4, NULL);
  for (int i = 0; i < sel->nlanes; i++) {
    sp_reader_info_t info;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    sp_cell_t c[4] = {{0, i, 0, NULL},
                      {0, sp_reader_rank_id(sel->reader, sel->lanes[i].rank), 0, NULL},
                      {0, info.num_intervals, 0, NULL},
                      {0, 0, 0, sp_reader_region_name(sel->reader, sel->lanes[i].region)}};
    sp_table_row(&tb, c);
  }
  sp_table_end(&tb);
  return SP_EXIT_OK;
}
