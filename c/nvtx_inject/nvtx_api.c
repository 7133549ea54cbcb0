/* nvtx_api.c - NVTX3's C API as exported symbols (NVTX_EXPORT_API, the
 * way nvToolsExt.h describes for other languages): nvtxRangePushA,
 * nvtxRangePop, nvtxMarkA, ... for Fortran's bind(C) interfaces (module
 * scope_profiler_nvtx) and any program that links a library instead of
 * including the headers. No code of ours: NVTX's own, compiled once. */
#define NVTX_EXPORT_API
#include <nvtx3/nvToolsExt.h>
