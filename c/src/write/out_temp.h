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

/* sp_finalize, collective over par, before any file is created: rank 0
 * checks its file_path (sp__out_target_check) and, unless the profile is
 * discarded, creates the temporary name when want_temp; it learns every
 * rank's file_path (and says which differ from its own) and sends every
 * rank its status, whether the profile is discarded, its file_path and the
 * name, in one broadcast. On return each rank holds rank 0's name in tmp,
 * *discard, and *differs when it records (active) and its file_path is not
 * rank 0's. Returns 0 or this rank's error, rank 0's (SP_EPATH when its
 * file_path may not be replaced, logged) included; finalize's agreement
 * after the step makes it every rank's. One gather and one broadcast: each
 * exchange costs every rank two wake-ups where ranks share cores. */
SP_HIDDEN int sp__out_agree(sp_par_t *par, const sp_state_t *st, int active, int want_temp,
                            int *discard, int *differs, char *tmp, size_t cap);

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
