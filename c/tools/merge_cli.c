/* merge_cli.c - the command line of crash recovery, shared by
 * `scope-profiler-merge` and `scope-profiler-pproc merge`: rebuild a
 * profile from the spill files of a run that died (SIGKILL at the
 * wall-time limit, MPI_Abort, a crash). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "merge_cli.h"
#include "scope_profiler.h"

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_PARTIAL = 4 };

static void usage(FILE *f, const char *prog) {
  fprintf(f, "usage: %s [-f] [-o OUT.h5] SPILL_DIR_OR_FILE...\n", prog);
}

static void help(const char *prog) {
  usage(stdout, prog);
  printf(
      "\n"
      "Rebuilds the profiling file (rank<N>/regions/<name>/start_times, end_times)\n"
      "from the spill files a run left behind when it died before sp_finalize.\n"
      "Spill files live in <file_path>.spill/ (or $SCOPE_PROFILER_SPILL_DIR), one per\n"
      "rank: rank<N>.<host>.<pid>.spill. Runs serially, without MPI.\n\n"
      "  -o OUT.h5   output file (default: profiling_data.h5)\n"
      "  -f          replace OUT.h5 if it exists (never a FIFO or device)\n"
      "  -h, --help  this text\n"
      "  --version   print the version\n\n"
      "Inputs are only read, never changed or removed. Damaged records are skipped\n"
      "and every whole record around them recovered; ranks without a readable spill\n"
      "file are written as empty groups with the attribute missing = 1. Each damaged\n"
      "file and missing rank is named on stderr. Inputs holding several runs' files\n"
      "(runs killed writing one path: two files of one rank, or two runs without MPI,\n"
      "told apart by the run id in each file's head) give one file per run:\n"
      "the latest run's at OUT.h5, the one before at OUT.earlier1.h5, and so on.\n\n"
      "Exit status:\n"
      "  0  every rank and record recovered (a torn last record, from a run killed\n"
      "     while writing it, is reported but not an error)\n"
      "  1  no readable spill file: nothing written\n"
      "  2  usage error (also: OUT.h5 exists without -f, or is one of the inputs, or\n"
      "     is not a regular file; or another process wrote OUT.h5 while this merge ran:\n"
      "     the result is then kept as OUT.h5.<host>.<pid>.<random>.h5, named on stderr)\n"
      "  3  I/O or HDF5 failure: nothing written\n"
      "  4  OUT.h5 written, but some ranks or records could not be recovered\n");
}

int sp_merge_main(int argc, char **argv, const char *prog) {
  const char *out = "profiling_data.h5";
  const char *inputs[4096];
  int n = 0, force = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      help(prog);
      return EXIT_OK;
    } else if (!strcmp(argv[i], "--version")) {
      printf("%s %s\n", prog, sp_version_string());
      return EXIT_OK;
    } else if (!strcmp(argv[i], "-f")) {
      force = 1;
    } else if (!strcmp(argv[i], "-o")) {
      if (++i == argc) {
        fprintf(stderr, "%s: -o needs a file name\n", prog);
        usage(stderr, prog);
        return EXIT_USAGE;
      }
      out = argv[i];
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
      usage(stderr, prog);
      return EXIT_USAGE;
    } else if (n < (int)(sizeof inputs / sizeof inputs[0])) {
      inputs[n++] = argv[i];
    }
  }
  if (n == 0) {
    fprintf(stderr, "%s: no spill directory or file given\n", prog);
    usage(stderr, prog);
    return EXIT_USAGE;
  }
  struct stat sb;
  /* Spill files whose sp_finalize published OUT before it was killed carry
   * a note (spill_published.c): the library says so and returns 0. */
  int noted = 0;
  for (int i = 0; i < n; i++) {
    char note[4096];
    snprintf(note, sizeof note, "%s/published", inputs[i]);
    noted += stat(note, &sb) == 0;
  }
  if (!force && noted < n && stat(out, &sb) == 0) {
    fprintf(stderr, "%s: '%s' exists; use -f to replace it or -o elsewhere\n", prog, out);
    return EXIT_USAGE;
  }
  /* Without -f a file that appears at OUT.h5 meanwhile (another merge into
   * it) is not replaced either: this result is kept aside (named). */
  int rc = sp_spill_merge2(inputs, n, out, force ? SP_MERGE_REPLACE : 0);
  if (rc == 0) return EXIT_OK;
  if (rc == SP_EPATH && !force) { /* OUT.h5, or the aggregates' file beside it */
    fprintf(stderr, "%s: a file it would write exists (named above); not replaced, use -f\n", prog);
    return EXIT_USAGE;
  }
  if (rc == SP_EPARTIAL) {
    fprintf(stderr, "%s: '%s' written, but %s (named above)\n", prog, out, sp_strerror(rc));
    return EXIT_PARTIAL;
  }
  fprintf(stderr, "%s: %s\n", prog, sp_strerror(rc));
  return rc == SP_ESPILL ? EXIT_BAD_INPUT : rc == SP_EINVAL ? EXIT_USAGE : EXIT_IO;
}
