/* listing.c - --list: the lanes of the chart as text, in drawing order. */
#include <stdio.h>

#include "pproc.h"

int sp_list_print(const sp_selection_t *sel) {
  printf("lane rank intervals region\n");
  for (int i = 0; i < sel->nlanes; i++) {
    sp_reader_info_t info;
    sp_reader_info(sel->reader, sel->lanes[i].region, sel->lanes[i].rank, &info);
    const char *host = sp_rank_host_shown(sel, sel->lanes[i].rank);
    printf("%d %d", i, sp_reader_rank_id(sel->reader, sel->lanes[i].rank));
    if (host) {
      putchar('@');
      sp_text_put(stdout, host, SP_TEXT_PLAIN);
    }
    printf(" %lld ", (long long)info.num_intervals);
    sp_text_put(stdout, sp_reader_region_name(sel->reader, sel->lanes[i].region), SP_TEXT_PLAIN);
    putchar('\n');
  }
  return SP_EXIT_OK;
}
