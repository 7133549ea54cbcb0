/* scope-profiler-merge - rebuild a profile from spill files (see merge_cli.c). */
#include "merge_cli.h"

int main(int argc, char **argv) { return sp_merge_main(argc, argv, "scope-profiler-merge"); }
