/* out_target.h - what a profile's path names, settled at sp_setup.
 *
 * - A relative path is made absolute against the working directory at
 *   sp_setup: a host that chdir()s later still gets its file where it
 *   asked, and a rerun finds it there.
 * - The null device (/dev/null, a symlink to it, any character device with
 *   its numbers) means "discard": the session records as usual, spilling
 *   into $TMPDIR, and sp_finalize writes nothing and returns 0.
 * - Any other file that is not a regular one (a FIFO, a device, a socket, a
 *   directory) is never replaced: said at sp_setup (which returns SP_EPATH;
 *   recording goes on into the spill files), and refused again when the
 *   profile would be published (finalize, merge). */
#ifndef SP_OUT_TARGET_H
#define SP_OUT_TARGET_H

#include <stddef.h>

#include "sp_internal.h"

/* sp_setup, after file_path and spill_dir are set (config.c): makes both
 * absolute, sets st->discard for the null device (and then moves a spill
 * directory derived from file_path to $TMPDIR, unless spill_from_env).
 * Returns 0, SP_EINVAL (a path too long once absolute) or SP_EPATH (a
 * file_path that is not a regular file; logged). */
SP_HIDDEN int sp__out_target_resolve(sp_state_t *st, int spill_from_env);

/* "out.h5" -> "out.earlier<k>.h5": where a merge writes the k-th run before
 * the latest one found in its inputs (recovery.c, aggregate_recover.c). */
SP_HIDDEN void sp__earlier_path(const char *out_path, int k, char *out, size_t cap);

/* What is at path when it is there and must never be replaced ("a FIFO
 * (named pipe)", "a character device", ...), else NULL (nothing, a regular
 * file, a symlink: rename replaces the link, never its target). */
SP_HIDDEN const char *sp__out_target_kind(const char *path);

/* sp_finalize, collective over par, before any file is created: every rank
 * learns whether the profile is discarded (rank 0's file_path is the null
 * device) and whether its own file_path differs from rank 0's, where the
 * profile of all ranks goes (said once, by rank 0; such a rank's
 * sp_finalize returns SP_EPATH after the file is written). A rank that
 * records nothing (active 0) is not compared. Returns 0, or SP_EPATH on
 * every rank when rank 0's file_path may not be replaced (logged). */
struct sp_par;
SP_HIDDEN int sp__out_target_agree(struct sp_par *par, const sp_state_t *st, int active,
                                   int *discard, int *differs);

#endif
