/* disk_fill.h - the full disk the disk tests share (test_disk.c,
 * test_disk_mpi.c): a filler file on a small tmpfs, and "another job takes
 * the disk at the worst moment" through an ftruncate(2) hook.
 *
 * disk_fill.c is compiled into each of those executables (no library):
 * its ftruncate replaces libc's for libscope_profiler too only when it is
 * defined in the executable itself, linked with ENABLE_EXPORTS. */
#ifndef SP_DISK_FILL_H
#define SP_DISK_FILL_H

/* The directory of the small tmpfs (or of the RLIMIT_FSIZE stand-in),
 * "mnt.CASE"; the filler file is sp_disk_mnt/filler. */
extern char sp_disk_mnt[256];

/* Fills sp_disk_mnt until write(2) fails with ENOSPC (asserted), then gives
 * back `leave` bytes. */
void sp_disk_fill_leaving(long leave);

/* Removes the filler file (asserted): the space comes back. */
void sp_disk_unfill(void);

/* The hook: when the library empties a file whose path contains
 * sp_disk_taken_suffix again (ftruncate to 0, as finalize's space check
 * does with its temporary "<file>.partial.*"), the first time only
 * (sp_disk_taken_done becomes 1), the tmpfs is filled up to
 * sp_disk_taken_leave bytes. NULL suffix: the hook only truncates. */
extern const char *sp_disk_taken_suffix;
extern long sp_disk_taken_leave;
extern int sp_disk_taken_done;

/* Runs argv[0] with argv (stdout and stderr flushed first); returns its
 * exit status, -1 if it did not exit. */
int sp_disk_run(char *const argv[]);

#endif
