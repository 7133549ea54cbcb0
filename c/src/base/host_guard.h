/* host_guard.h - what the library's threads and descriptors must not take
 * from the host program (host_guard.c). Never installed. */
#ifndef SP_HOST_GUARD_H
#define SP_HOST_GUARD_H

#include <pthread.h>

#include "sp_internal.h"

/* pthread_create with every signal blocked in the new thread: a signal the
 * host blocks in its own threads (to sigwait for it) is never delivered to
 * one of ours, where its default action would end the process. */
SP_HIDDEN int sp__thread_spawn(pthread_t *tid, void *(*fn)(void *), void *arg);

/* fd itself when it is above 2, else a close-on-exec duplicate above 2 (the
 * original closed): a host run as `prog 2>&-` must not get our spill file
 * as its stderr. -1 (errno set) and fd closed when no duplicate is possible. */
SP_HIDDEN int sp__fd_above_std(int fd);

/* sp_setup: descriptors 0-2 the host has closed are held on /dev/null for
 * the session, so that no descriptor the library or HDF5 or MPI opens in
 * it becomes the host's stdin, stdout or stderr. sp_finalize gives them
 * back closed (only those still ours). */
SP_HIDDEN void sp__std_fds_hold(void);
SP_HIDDEN void sp__std_fds_release(void);

#endif /* SP_HOST_GUARD_H */
