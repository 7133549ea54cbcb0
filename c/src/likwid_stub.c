/* likwid_stub.c - LIKWID glue in a build without LIKWID. */
#include "sp_internal.h"

int sp__likwid_available(void) { return 0; }
