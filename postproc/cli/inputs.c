/* inputs.c - several input files: quoted shell patterns expanded by pproc,
 * duplicates dropped, and a label per file.
 *
 * As the reference tool: a word holding *, ? or [ is a pattern, expanded
 * (glob(3), sorted) to the regular files it matches; a pattern matching
 * nothing is a usage error ("No files matched pattern: P"). Other words are
 * taken as they are (a missing file is reported when it is opened). A file
 * given twice (same real path) is read once, at its first place. Labels are
 * the file names without directory and extension; a repeated label gets
 * " (2)", " (3)", ... */
#define _XOPEN_SOURCE 700
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pproc.h"

static int sp_is_pattern(const char *s) { return strpbrk(s, "*?[") != NULL; }

static int sp_is_regular(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Appends path unless its real path is already in the list. */
static int sp_inputs_add(sp_inputs_t *in, const char *path) {
  char *real = realpath(path, NULL);
  for (int k = 0; real && k < in->n; k++)
    if (in->real[k] && strcmp(in->real[k], real) == 0) {
      free(real);
      return 0;
    }
  char **f = realloc(in->files, (size_t)(in->n + 1) * sizeof *f);
  if (f) in->files = f;
  char **r = f ? realloc(in->real, (size_t)(in->n + 1) * sizeof *r) : NULL;
  if (r) in->real = r;
  char *copy = strdup(path);
  if (!f || !r || !copy) {
    free(real);
    free(copy);
    return SP_EXIT_IO;
  }
  in->files[in->n] = copy;
  in->real[in->n] = real;
  in->n++;
  return 0;
}

/* The label of path: its name without directory and extension. */
static char *sp_label_base(const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, b, n);
    s[n] = '\0';
  }
  return s;
}

static int sp_labels_make(sp_inputs_t *in) {
  in->labels = calloc((size_t)(in->n ? in->n : 1), sizeof *in->labels);
  if (!in->labels) return SP_EXIT_IO;
  for (int k = 0; k < in->n; k++) {
    char *base = sp_label_base(in->files[k]);
    if (!base) return SP_EXIT_IO;
    int seen = 0;
    for (int m = 0; m < k; m++) {
      char *other = sp_label_base(in->files[m]);
      seen += other && strcmp(other, base) == 0;
      free(other);
    }
    if (seen == 0) {
      in->labels[k] = base;
      continue;
    }
    size_t cap = strlen(base) + 16;
    in->labels[k] = malloc(cap);
    if (in->labels[k]) snprintf(in->labels[k], cap, "%s (%d)", base, seen + 1);
    free(base);
    if (!in->labels[k]) return SP_EXIT_IO;
  }
  return 0;
}

int sp_inputs_expand(const char *const *words, size_t nwords, sp_inputs_t *in) {
  memset(in, 0, sizeof *in);
  int rc = 0;
  for (size_t w = 0; rc == 0 && w < nwords; w++) {
    if (!sp_is_pattern(words[w]) || sp_is_regular(words[w])) {
      rc = sp_inputs_add(in, words[w]);
      continue;
    }
    glob_t g;
    int grc = glob(words[w], 0, NULL, &g);
    size_t kept = 0;
    for (size_t i = 0; grc == 0 && rc == 0 && i < g.gl_pathc; i++)
      if (sp_is_regular(g.gl_pathv[i])) {
        rc = sp_inputs_add(in, g.gl_pathv[i]);
        kept++;
      }
    if (grc == 0) globfree(&g);
    if (rc == 0 && kept == 0) {
      sp_msg(SP_QUIET, "No files matched pattern: %s", words[w]);
      sp_usage_short();
      rc = SP_EXIT_USAGE;
    }
  }
  if (rc == 0) rc = sp_labels_make(in);
  return rc;
}

void sp_inputs_free(sp_inputs_t *in) {
  for (int k = 0; k < in->n; k++) {
    free(in->files[k]);
    free(in->real[k]);
    if (in->labels) free(in->labels[k]);
  }
  free(in->files);
  free(in->real);
  free(in->labels);
  memset(in, 0, sizeof *in);
}
