/* out_temp.h - the output file's temporary name and its publication.
 *
 * A profile (finalize's or the merge tool's) is written under a name no
 * other writer uses, <file>.partial.<host>.<pid>.<random>, created with
 * O_EXCL|O_NOFOLLOW so a stale file or symlink there is never followed or
 * truncated, and renamed to <file> when complete. */
#ifndef SP_OUT_TEMP_H
#define SP_OUT_TEMP_H

#include <stddef.h>
#include <stdint.h>

#include "par.h"

/* Room for <file>.partial.<host>.<pid>.<random>. */
#define SP_TEMP_MAX (SP_PATH_MAX + 160)

/* Creates a new, empty file under a unique temporary name for final and
 * writes the name to tmp. Returns 0 or SP_EPATH (logged). */
SP_HIDDEN int sp__out_temp_create(const char *final, char *tmp, size_t cap);

/* The same, made by rank 0 and agreed by every rank of par (collective).
 * On return every rank holds the same name in tmp, or the same error. */
SP_HIDDEN int sp__out_temp_agree(sp_par_t *par, const char *final, char *tmp, size_t cap);

/* Renames tmp to final unless another writer has put a file at final since
 * `was` was taken (sp__out_id_take at setup): two runs with one file_path;
 * or the file at final was published by another rank of this MPI job (two
 * communicators with one file_path, the other one's written before this
 * one's sp_setup). Then the first one's file stays, tmp is kept as
 * <file>.<host>.<pid>.<random>.h5 (logged) and SP_EPATH is returned.
 * tmp[0] is set to '\0' once tmp no longer names a file of ours. Returns
 * 0, SP_EPATH or SP_EIO. */
SP_HIDDEN int sp__out_publish(char *tmp, const char *final, const sp_out_id_t *was);

/* The merge tool's publication: renames tmp to final, replacing a file
 * there only with replace; never a FIFO, device or directory. When final
 * may not be replaced (it is not a regular file, or it appeared meanwhile
 * without replace) tmp is kept aside as <file>.<host>.<pid>.<random>.h5
 * (logged) and SP_EPATH is returned. tmp[0] is set to '\0' once tmp no
 * longer names a file of ours. Returns 0, SP_EPATH or SP_EIO. */
SP_HIDDEN int sp__out_publish_merge(char *tmp, const char *final, int replace);

#endif
