/* reader_filter.c - include/exclude patterns on region names.
 *
 * The reference tool uses Python re.match: a match must begin at the start
 * of the name but may end anywhere. POSIX has no such mode, so each pattern
 * p is compiled as "^(p)" after checking that p compiles on its own (the
 * parentheses must not hide an unbalanced ')' in p). */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

static int sp_pattern_compile(sp_reader_t *r, const char *pat, regex_t *re) {
  regex_t probe;
  char why[256];
  int e = regcomp(&probe, pat, REG_EXTENDED | REG_NOSUB);
  if (e != 0) {
    regerror(e, &probe, why, sizeof why);
    return sp__reader_fail(r, SP_READER_EPATTERN, "invalid pattern '%s': %s", pat, why);
  }
  regfree(&probe);
  size_t len = strlen(pat);
  char *anchored = malloc(len + 4);
  if (!anchored) return SP_READER_ENOMEM;
  memcpy(anchored, "^(", 2);
  memcpy(anchored + 2, pat, len);
  memcpy(anchored + 2 + len, ")", 2);
  e = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
  free(anchored);
  if (e != 0) {
    regerror(e, re, why, sizeof why);
    return sp__reader_fail(r, SP_READER_EPATTERN, "invalid pattern '%s': %s", pat, why);
  }
  return 0;
}

static void sp_patterns_free(regex_t *re, size_t n) {
  for (size_t i = 0; i < n; i++) regfree(&re[i]);
  free(re);
}

static int sp_patterns_compile(sp_reader_t *r, const char *const *pats, size_t n, regex_t **out) {
  *out = NULL;
  if (n == 0) return 0;
  regex_t *re = calloc(n, sizeof *re);
  if (!re) return SP_READER_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    int rc = sp_pattern_compile(r, pats[i], &re[i]);
    if (rc) {
      sp_patterns_free(re, i);
      return rc;
    }
  }
  *out = re;
  return 0;
}

static int sp_any_match(const regex_t *re, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (regexec(&re[i], name, 0, NULL, 0) == 0) return 1;
  return 0;
}

int sp_reader_filter(sp_reader_t *r, const char *const *include, size_t ninclude,
                     const char *const *exclude, size_t nexclude, int *regions, int *count) {
  if (!r || !regions || !count || (ninclude && !include) || (nexclude && !exclude))
    return SP_READER_EINVAL;
  *count = 0;
  regex_t *inc = NULL, *exc = NULL;
  int rc = sp_patterns_compile(r, include, ninclude, &inc);
  if (rc == 0) rc = sp_patterns_compile(r, exclude, nexclude, &exc);
  for (int g = 0; rc == 0 && g < r->nregions; g++) {
    const char *name = r->regions[g].name;
    if (ninclude && !sp_any_match(inc, ninclude, name)) continue;
    if (nexclude && sp_any_match(exc, nexclude, name)) continue;
    regions[(*count)++] = g;
  }
  if (inc) sp_patterns_free(inc, ninclude);
  if (exc) sp_patterns_free(exc, nexclude);
  return rc;
}
