/* settings_layout.c - prints, for tests/docs/settings.py, the layout of the
 * public sp_config as the C compiler lays it out: one line per field that
 * settings.def marks CONFIG ("field offset size"), then "sizeof N". The
 * bindings' mirrors of the struct are checked against these lines. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scope_profiler.h"
#include "settings.def"

#define SP_LAYOUT_CONFIG(f) \
  printf("%s %zu %zu\n", #f, offsetof(sp_config, f), sizeof(((sp_config *)0)->f));
#define SP_LAYOUT_SETTINGS(f)
#define SP_LAYOUT_OWN(f)
#define SP_LAYOUT_ROW(env, where, field, kind, def, low, high, over, unit, choices, shown, doc) \
  SP_LAYOUT_##where(field)

int main(void) {
  SP_SETTINGS(SP_LAYOUT_ROW)
  printf("sizeof %zu\n", sizeof(sp_config));
  return 0;
}
