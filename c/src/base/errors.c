/* errors.c - version queries and the text of SP_E* codes. */
#include "sp_internal.h"

unsigned sp_version_number(void) { return SP_VERSION_NUMBER; }

const char *sp_version_string(void) { return SP_VERSION_STRING; }

const char *sp_strerror(int err) {
  switch (err) {
#define SP__XX(name, value, text) \
  case SP_##name:                 \
    return text;
    SP_ERRNO_MAP(SP__XX)
#undef SP__XX
  case SP_OK:
    return "success";
  default:
    return "unknown error";
  }
}

const char *sp_err_name(int err) {
  switch (err) {
#define SP__XX(name, value, text) \
  case SP_##name:                 \
    return "SP_" #name;
    SP_ERRNO_MAP(SP__XX)
#undef SP__XX
  case SP_OK:
    return "SP_OK";
  default:
    return "SP_UNKNOWN";
  }
}
