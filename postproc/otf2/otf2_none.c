/* otf2_none.c - --export otf2 in a build without the OTF2 library. */
#include "export_otf2.h"

int sp_otf2_available(void) { return 0; }

int sp_otf2_export_files(const sp_selection_t *sels, const char *const *labels, int nfiles,
                         const sp_options_t *o) {
  (void)sels, (void)labels, (void)nfiles, (void)o;
  sp_msg(SP_QUIET, "--export otf2: this build has no OTF2 library");
  return SP_EXIT_USAGE;
}
