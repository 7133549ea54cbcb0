/* out_temp.c - the output file's temporary name and its publication.
 *
 * Two writers may target one path: two runs started at once, or the two
 * halves of a split communicator with the same file_path. Each writes its
 * own temporary file; at the end each renames it over <file> unless the
 * file there is no longer the one that was there when its sp_setup ran,
 * i.e. another writer has published since. So the first to publish wins,
 * a writer returns 0 only when its data is at <file> at that moment, and
 * the other keeps its complete profile under a name of its own. The check
 * and the rename are done holding an flock on the directory where the file
 * system offers one (a best effort: without it two renames in the same
 * instant may still both succeed).
 *
 * That check alone misses the half of a split communicator whose sp_setup
 * ran after the other half had published: the other half's file is then
 * "the one that was there", replaced, and the other half's 0 was a lie
 * (issue 43 item 17). So under MPI every published file carries an
 * extended attribute naming its writer (the job, rank 0's random number at
 * MPI_Init, and the writer's world rank), and a writer never replaces a
 * file another rank of its own job published. Where the file system keeps
 * no user extended attributes, only the first check is made. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "out_target.h"
#include "out_temp.h"

void sp__out_id_take(const char *path, sp_out_id_t *id) {
  struct stat sb;
  memset(id, 0, sizeof *id);
  int saved = errno;
  if (lstat(path, &sb) == 0) {
    id->present = 1;
    id->dev = (uint64_t)sb.st_dev;
    id->ino = (uint64_t)sb.st_ino;
  }
  errno = saved;
}

#define SP_WRITER_XATTR "user.scope_profiler.writer"

/* sp__mpi_writer(): "<job>:<world rank>" of this process, "" when not
 * under MPI; the job part is the first SP_JOB_LEN characters. */
#define SP_JOB_LEN 16

/* The writer named by the file at path when it is another rank of this
 * job, into who; else 0. */
static int sp_sibling_file(const char *path, char *who, size_t cap) {
  const char *sp_writer = sp__mpi_writer();
  if (!sp_writer[0]) return 0;
  char got[SP_MPI_WRITER_MAX];
  int saved = errno;
  ssize_t n = lgetxattr(path, SP_WRITER_XATTR, got, sizeof got - 1);
  errno = saved;
  if (n <= SP_JOB_LEN) return 0;
  got[n] = '\0';
  if (strncmp(got, sp_writer, SP_JOB_LEN) != 0 || strcmp(got, sp_writer) == 0) return 0;
  snprintf(who, cap, "%s", got + SP_JOB_LEN + 1);
  return 1;
}

int sp__out_temp_create(const char *final, char *tmp, size_t cap) {
  char host[64] = "host";
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "host");
  host[sizeof host - 1] = '\0';
  for (char *c = host; *c; c++)
    if (*c == '/') *c = '_';
  int err = 0;
  for (int attempt = 0; attempt < 16; attempt++) {
    unsigned long long rnd = (unsigned long long)(sp__random64() & 0xffffffffffffULL);
    if (snprintf(tmp, cap, "%s.partial.%s.%ld.%012llx", final, host, (long)getpid(), rnd) >=
        (int)cap) {
      tmp[0] = '\0';
      sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "'%s': path too long for its temporary name", final);
      return SP_EPATH;
    }
    /* O_EXCL|O_NOFOLLOW: whatever is at the name already, file or symlink,
     * is neither followed nor truncated. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      close(fd);
      return 0;
    }
    err = errno;
    if (err != EEXIST) break;
  }
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS, "cannot create a temporary file for '%s' ('%s'): %s", final,
          tmp, strerror(err));
  tmp[0] = '\0';
  return SP_EPATH;
}

/* Rank 0's answer: its status and discard, then its file_path and the
 * temporary name, each with its NUL. */
static int sp_out_answer(const sp_state_t *st, int rc, int discard, const char *tmp, char **msg,
                         int64_t *len) {
  const size_t a = strlen(st->file_path) + 1, b = strlen(tmp) + 1;
  *msg = malloc(16 + a + b);
  if (!*msg) return SP_ENOMEM;
  const int64_t head[2] = {rc, discard};
  memcpy(*msg, head, 16);
  memcpy(*msg + 16, st->file_path, a);
  memcpy(*msg + 16 + a, tmp, b);
  *len = (int64_t)(16 + a + b);
  return 0;
}

/* Another rank: rank 0's answer (len bytes) read. */
static int sp_out_read(const sp_state_t *st, int active, const char *msg, int64_t len, int *discard,
                       int *differs, char *tmp, size_t cap) {
  int64_t head[2];
  if (len < 18) return SP_EMPI;
  memcpy(head, msg, 16);
  const char *path = msg + 16, *end = msg + len;
  const char *name = memchr(path, '\0', (size_t)(end - path));
  if (!name || !memchr(name + 1, '\0', (size_t)(end - name - 1))) return SP_EMPI;
  name++;
  *discard = head[1] != 0;
  *differs = active && strcmp(path, st->file_path) != 0;
  if (strlen(name) + 1 > cap) return SP_EPATH;
  memcpy(tmp, name, strlen(name) + 1);
  return (int)head[0];
}

int sp__out_agree(sp_par_t *par, const sp_state_t *st, int active, int want_temp, int *discard,
                  int *differs, char *tmp, size_t cap) {
  *discard = 0;
  *differs = 0;
  tmp[0] = '\0';
  int rc = 0;
  if (par->rank == 0) {
    rc = sp__out_target_check(st, discard);
    if (rc == 0 && want_temp && !*discard) rc = sp__out_temp_create(st->file_path, tmp, cap);
  }
  if (!par->active) return rc;
  /* Every rank's path to rank 0 (those recording nothing send ""). */
  const int64_t len = (int64_t)strlen(st->file_path) + 1;
  char *all = NULL;
  int64_t *offs = NULL;
  int grc = sp__par_gather_root(par, active ? st->file_path : "", active ? len : 0, &all, &offs);
  if (grc == 0 && par->rank == 0) sp__out_target_differing(par, st->file_path, all, offs);
  free(all);
  free(offs);
  /* Rank 0's status, discard, path and name to every rank in one message. */
  char *msg = NULL;
  int64_t mlen = -1;
  if (par->rank == 0 && sp_out_answer(st, rc != 0 ? rc : grc, *discard, tmp, &msg, &mlen) != 0)
    mlen = -1; /* the others learn it from the broadcast */
  int brc = sp__par_bcast(par, &msg, &mlen);
  if (par->rank != 0 && brc == 0)
    brc = sp_out_read(st, active, msg, mlen, discard, differs, tmp, cap);
  free(msg);
  if (par->rank == 0 && rc == 0 && mlen < 0) rc = SP_ENOMEM;
  return rc != 0 ? rc : grc != 0 ? grc : brc;
}

/* An exclusive flock on the directory of path, waiting at most ~5 s;
 * returns the descriptor to close, or -1 (no lock: go on without). */
static int sp_lock_dir(const char *path) {
  char dir[SP_PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, sizeof dir, ".");
  } else if (slash == path) {
    snprintf(dir, sizeof dir, "/");
  } else if (snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path) >= (int)sizeof dir) {
    return -1;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  for (int i = 0; i < 2500; i++) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR) break;
    struct timespec two_ms = {0, 2000000};
    nanosleep(&two_ms, NULL);
  }
  close(fd);
  return -1;
}

/* tmp is not published: keep it as <file>.<host>.<pid>.<random>.h5 (its
 * name in kept). */
static void sp_keep_aside(char *tmp, const char *final, char *kept, size_t cap) {
  const size_t skip = strlen(final) + strlen(".partial");
  if (strlen(tmp) < skip || snprintf(kept, cap, "%s%s.h5", final, tmp + skip) >= (int)cap ||
      rename(tmp, kept) != 0)
    snprintf(kept, cap, "%s", tmp);
  else
    tmp[0] = '\0';
}

/* tmp lost the race: keep it aside. */
static void sp_keep_loser(char *tmp, const char *final) {
  char kept[SP_TEMP_MAX + 8];
  sp_keep_aside(tmp, final, kept, sizeof kept);
  sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
          "'%s' was written by another run after this one started (two runs with one "
          "file_path?); it is left as it is and this run's profile is kept as '%s'",
          final, kept);
}

int sp__out_publish(char *tmp, const char *final, const sp_out_id_t *was) {
  int lock = sp_lock_dir(final);
  char who[32];
  sp_out_id_t now;
  sp__out_id_take(final, &now);
  int rc = 0;
  const char *kind = sp__out_target_kind(final); /* a FIFO, a device: never replaced */
  if (kind) {
    char kept[SP_TEMP_MAX + 8];
    sp_keep_aside(tmp, final, kept, sizeof kept);
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' is %s, not a regular file: not replaced; the profile is kept as '%s'", final,
            kind, kept);
    rc = SP_EPATH;
  } else if (now.present && !(was->present && was->dev == now.dev && was->ino == now.ino)) {
    sp_keep_loser(tmp, final);
    rc = SP_EPATH;
  } else if (now.present && sp_sibling_file(final, who, sizeof who)) {
    char kept[SP_TEMP_MAX + 8];
    sp_keep_aside(tmp, final, kept, sizeof kept);
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' was written by world rank %s of this MPI job (two communicators with one "
            "file_path?); it is left as it is and this profile is kept as '%s'",
            final, who, kept);
    rc = SP_EPATH;
  } else {
    /* Best effort: without the attribute only the first check holds. */
    const char *sp_writer = sp__mpi_writer();
    if (sp_writer[0]) setxattr(tmp, SP_WRITER_XATTR, sp_writer, strlen(sp_writer), 0);
    if (rename(tmp, final) != 0)
      rc = SP_EIO;
    else
      tmp[0] = '\0';
  }
  if (lock >= 0) close(lock); /* releases the flock */
  return rc;
}

/* Moves tmp to final only if nothing is there: renameat2(RENAME_NOREPLACE),
 * else link() and unlink() where the file system lacks it. 0, EEXIST, or
 * another errno. */
static int sp_rename_new(const char *tmp, const char *final) {
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0) return 0;
  int err = errno;
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP) return err;
  if (link(tmp, final) != 0) return errno;
  unlink(tmp);
  return 0;
}

int sp__out_publish_merge(char *tmp, const char *final, int replace) {
  int rc = 0, err = 0;
  const char *kind = sp__out_target_kind(final);
  char kept[SP_TEMP_MAX + 8];
  if (kind) {
    sp_keep_aside(tmp, final, kept, sizeof kept);
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' is %s, not a regular file: not replaced; the profile is kept as '%s'", final,
            kind, kept);
    rc = SP_EPATH;
  } else if (replace) {
    rc = rename(tmp, final) == 0 ? 0 : SP_EIO;
  } else if ((err = sp_rename_new(tmp, final)) == EEXIST) {
    sp_keep_aside(tmp, final, kept, sizeof kept);
    sp__log(SP_LOG_ERROR, SP_LOG_ALWAYS,
            "'%s' was written by another writer while this one ran (two merges into one "
            "file?); it is left as it is and this profile is kept as '%s'",
            final, kept);
    rc = SP_EPATH;
  } else if (err != 0) {
    rc = SP_EIO;
  }
  if (rc == 0) tmp[0] = '\0';
  return rc;
}
