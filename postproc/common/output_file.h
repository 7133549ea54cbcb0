/* output_file.h - a chart reaches its final name complete or not at all. */
#ifndef SP_OUTPUT_FILE_H
#define SP_OUTPUT_FILE_H

#include <stddef.h>

#include "pproc.h"

/* Creates an empty temporary file for final, next to it so that rename is
 * atomic: DIR/.NAME.PID.N.tmp (O_EXCL, O_NOFOLLOW), its name in tmp (cap
 * bytes). Returns 0, or -1 with errno set. */
int sp_output_temp(const char *final, char *tmp, size_t cap);

/* Checks that tmp ends as a complete file of format f and is on disk
 * (fsync), then renames it to final. On failure prints why, removes tmp
 * and returns SP_EXIT_IO; final is left untouched. */
int sp_output_commit(const char *tmp, const char *final, sp_format_t f);

/* The same for a text file that must end with ending (then blanks), e.g.
 * "</html>". */
int sp_output_commit_text(const char *tmp, const char *final, const char *ending);

/* mkdir -p dir (dir not empty). Returns 0, or -1 with errno set (ENOTDIR
 * when dir exists but is not a directory). */
int sp_output_mkdirs(const char *dir);

/* Bytes of an output path, NUL included. */
#define SP_PATH_MAX 4096

/* Creates DIR (mkdir -p) and puts DIR/<name>.<ext> into path (SP_PATH_MAX
 * bytes) without doubling the slashes DIR may end with. Returns 0, or
 * SP_EXIT_IO after printing why. */
int sp_chart_path(const char *dir, const char *name, const char *ext, char *path);

#endif
