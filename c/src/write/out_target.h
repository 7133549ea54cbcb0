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
#include <stdint.h>

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

/* sp_finalize, rank 0, before any file is created: *discard when its
 * file_path is the null device; SP_EPATH (logged) when that path may not
 * be replaced, else 0. sp__out_agree (out_temp.h) tells every rank. */
SP_HIDDEN int sp__out_target_check(const sp_state_t *st, int *discard);

/* Rank 0: logs which ranks' file_path (all[offs[r]..], gathered; "" for a
 * rank that records nothing) differ from its own, mine: the profile of all
 * ranks goes to rank 0's (said once; such a rank's sp_finalize returns
 * SP_EPATH after the file is written). */
struct sp_par;
SP_HIDDEN void sp__out_target_differing(const struct sp_par *par, const char *mine, const char *all,
                                        const int64_t *offs);

#endif
