/* sp_test_cases.h - the one case dispatcher of the C test programs.
 *
 * A program lists its cases in one table and lets sp_test_case_pick()
 * read its command line:
 *
 *   PROGRAM --list          prints every case name, one a line, exit 0
 *                           (tests/check_cases.cmake compares them with the
 *                           tests CTest has: a case in C but not in CTest
 *                           fails tests.cases_registered)
 *   PROGRAM CASE [ARGS...]  the case; the program runs it (after MPI_Init
 *                           where it needs MPI: --list needs no mpirun)
 *
 *   static const sp_test_case cases[] = {
 *       SP_TEST_CASE(errors),                   // runs case_errors()
 *       SP_TEST_CASE_NAMED(spill_full, spill),  // runs spill("spill_full")
 *   };
 *   int main(int argc, char **argv) {
 *     int status;
 *     const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
 *     if (!c) return status;
 *     sp_test_case_run(c);
 *     ...
 *   }
 *
 * Header only, so that programs that do not link sp_test_util (the reader's
 * tests) use it too. */
#ifndef SP_TEST_CASES_H
#define SP_TEST_CASES_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct sp_test_case {
  const char *name;
  void (*run)(void);               /* case_<name>(), or NULL */
  void (*run_named)(const char *); /* or this, given the case's name */
} sp_test_case;

/* A case run by the function case_<name>(void). */
#define SP_TEST_CASE(name) \
  { #name, case_##name, NULL }
/* A case run by fn(const char *name): several cases sharing one function. */
#define SP_TEST_CASE_NAMED(name, fn) \
  { #name, NULL, fn }

/* The case argv[1] names. NULL after --list (names printed, *status 0)
 * or for a missing or unknown case (usage on stderr, *status 2). */
static inline const sp_test_case *sp_test_case_pick(const sp_test_case *cases, size_t n, int argc,
                                                    char **argv, int *status) {
  const char *prog = argc > 0 ? argv[0] : "test";
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < n; i++) printf("%s\n", cases[i].name);
    *status = 0;
    return NULL;
  }
  for (size_t i = 0; argc > 1 && i < n; i++)
    if (strcmp(argv[1], cases[i].name) == 0) return &cases[i];
  if (argc > 1) fprintf(stderr, "%s: unknown case '%s'\n", prog, argv[1]);
  fprintf(stderr, "usage: %s CASE [ARGS...] | --list\ncases:", prog);
  for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", cases[i].name);
  fprintf(stderr, "\n");
  *status = 2;
  return NULL;
}

#define SP_TEST_CASE_PICK(cases, argc, argv, status) \
  sp_test_case_pick((cases), sizeof(cases) / sizeof((cases)[0]), (argc), (argv), (status))

static inline void sp_test_case_run(const sp_test_case *c) {
  if (c->run)
    c->run();
  else
    c->run_named(c->name);
}

#endif /* SP_TEST_CASES_H */
