/* fuzz_args.c - libFuzzer harness for the scope-profiler-pproc command
 * line: the input is split at newlines into argv words (at most 64) and
 * parsed by sp_options_parse; words given to --ranks are then parsed by
 * sp_ranks_parse against a small 4-rank profile written at start-up (ids
 * 0..3). A crash, sanitizer report or leak is a finding; usage errors are
 * the expected outcome. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pproc.h"
#include "sp_gen_synthetic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SP_FUZZ_MAX_WORDS 64

static sp_reader_t *sp_fuzz_reader;

static sp_reader_t *sp_fuzz_profile(void) {
  if (sp_fuzz_reader) return sp_fuzz_reader;
  const char *tmp = getenv("TMPDIR");
  char path[256], msg[256];
  snprintf(path, sizeof path, "%s/sp_fuzz_args.%ld.h5", tmp ? tmp : "/tmp", (long)getpid());
  if (sp_gen_synthetic(path, 4, 3, 24) != 0) abort();
  if (sp_reader_open(path, &sp_fuzz_reader, msg, sizeof msg) != 0) abort();
  unlink(path); /* the reader keeps it open */
  return sp_fuzz_reader;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sp_reader_t *r = sp_fuzz_profile();
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char *argv[SP_FUZZ_MAX_WORDS + 2];
  int argc = 0;
  argv[argc++] = (char *)SP_PROG;
  for (char *w = text; w && argc <= SP_FUZZ_MAX_WORDS;) {
    char *nl = strchr(w, '\n');
    if (nl) *nl = '\0';
    argv[argc++] = w;
    w = nl ? nl + 1 : NULL;
  }
  argv[argc] = NULL;
  sp_options_t o;
  int rc = sp_options_parse(argc, argv, &o);
  if (rc == 0 && o.nranks > 0) {
    int *ranks = NULL, n = 0;
    if (sp_ranks_parse(o.ranks, o.nranks, r, &ranks, &n) == 0) {
      for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= sp_reader_num_ranks(r)) abort();
    }
    free(ranks);
  }
  sp_options_free(&o);
  sp_msg_set_level(SP_NORMAL); /* -q / -v set global state */
  free(text);
  return 0;
}
