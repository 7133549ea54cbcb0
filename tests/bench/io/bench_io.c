/* bench_io.c - the added cost of profile_io (SCOPE_PROFILER_PROFILE_IO):
 *   - write() of 1 byte to a file in /dev/shm: libc's write called directly
 *     (the unwrapped call), through the library's wrapper with profile_io
 *     off, and on (each call a region io:write with its bytes and file id,
 *     and its file's record);
 *   - MPI_File_write_at of 1 KiB to a file in /dev/shm: PMPI_File_write_at
 *     directly, through the wrapper off, and on;
 * each with the other core idle and with a thread spinning on it.
 * The unwrapped and the wrapped call alternate in blocks of N calls, so
 * that a loaded machine's noise falls on both; the added cost is the
 * median of the blocks' differences.
 * usage: bench_io [N]   (301 blocks of N calls of each kind; not a test) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);

#define BLOCKS 301 /* blocks of each kind, interleaved: a busy machine's noise hits both */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void session(int io) {
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.profile_io = io;
  cfg.file_path = "/dev/null"; /* nothing is written: the sessions are for timing */
  if (sp_setup(&cfg) != 0) abort();
}

/* ns per call of a block of n calls: kind 0 the unwrapped call, 1 the wrapped one. */
typedef double (*block_fn)(int kind, long n, void *arg);

static void sort_out(double *a, double *b, double *d, double *raw, double *wrapped, double *added);

/* The median over BLOCKS interleaved blocks of each kind, and the median of
 * the per-pair differences (wrapped - unwrapped): the added cost. */
static void compare(block_fn f, long n, void *arg, double *raw, double *wrapped, double *added) {
  static double a[BLOCKS], b[BLOCKS], d[BLOCKS];
  for (int k = 0; k < BLOCKS; k++) {
    a[k] = f(0, n, arg);
    b[k] = f(1, n, arg);
    d[k] = b[k] - a[k];
  }
  sort_out(a, b, d, raw, wrapped, added);
}

/* The same with the unwrapped call in a session without profile_io and the
 * wrapped one in a session with it, each block after a session switch and
 * a few calls (MPI-IO's own POSIX calls: recorded when PMPI is called in a
 * session with profile_io, never under a wrapped MPI-IO call). */
static void compare_sessions(block_fn f, long n, void *arg, double *raw, double *wrapped,
                             double *added) {
  static double a[BLOCKS], b[BLOCKS], d[BLOCKS];
  for (int k = 0; k < BLOCKS; k++) {
    session(0);
    f(0, 20, arg);
    a[k] = f(0, n, arg);
    session(1);
    f(1, 20, arg);
    b[k] = f(1, n, arg);
    d[k] = b[k] - a[k];
  }
  sort_out(a, b, d, raw, wrapped, added);
}

static void sort_out(double *a, double *b, double *d, double *raw, double *wrapped, double *added) {
  qsort(a, BLOCKS, sizeof *a, cmp_double);
  qsort(b, BLOCKS, sizeof *b, cmp_double);
  qsort(d, BLOCKS, sizeof *d, cmp_double);
  *raw = a[BLOCKS / 2];
  *wrapped = b[BLOCKS / 2];
  *added = d[BLOCKS / 2];
}

typedef struct {
  write_fn libc_write;
  int fd;
  MPI_File fh;
} target_t;

static double write_block(int kind, long n, void *arg) {
  const target_t *t = arg;
  char c = 'x';
  lseek(t->fd, 0, SEEK_SET);
  double t0 = now_ns();
  if (kind == 0) {
    for (long i = 0; i < n; i++)
      if (t->libc_write(t->fd, &c, 1) != 1) abort();
  } else {
    for (long i = 0; i < n; i++)
      if (write(t->fd, &c, 1) != 1) abort();
  }
  return (now_ns() - t0) / (double)n;
}

static double write_at_block(int kind, long n, void *arg) {
  const target_t *t = arg;
  static char kib[1024];
  double t0 = now_ns();
  for (long i = 0; i < n; i++) {
    MPI_Offset off = (MPI_Offset)(i % 64) * 1024;
    int rc = kind == 0 ? PMPI_File_write_at(t->fh, off, kib, 1024, MPI_BYTE, MPI_STATUS_IGNORE)
                       : MPI_File_write_at(t->fh, off, kib, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) abort();
  }
  return (now_ns() - t0) / (double)n;
}

static void quiet_log(int level, const char *msg, void *user) {
  (void)level, (void)msg, (void)user; /* "sp_setup called again": expected here */
}

static volatile int spin_stop;
static void *spin(void *arg) {
  (void)arg;
  volatile unsigned long x = 0;
  while (!spin_stop) x++;
  return NULL;
}

static void run(long n, target_t *t, const char *what) {
  double r[4][3];
  session(0);
  compare(write_block, n, t, &r[0][0], &r[0][1], &r[0][2]);
  compare(write_at_block, n, t, &r[1][0], &r[1][1], &r[1][2]);
  session(1);
  compare(write_block, n, t, &r[2][0], &r[2][1], &r[2][2]);
  compare_sessions(write_at_block, n, t, &r[3][0], &r[3][1], &r[3][2]);
  session(0);
  printf("%s (medians of %d interleaved blocks of %ld calls, ns per call)\n", what, BLOCKS, n);
  static const char *const name[4] = {
      "write(1 B, /dev/shm), profile_io off", "MPI_File_write_at(1 KiB), profile_io off",
      "write(1 B, /dev/shm), profile_io on ", "MPI_File_write_at(1 KiB), on (PMPI: off)"};
  for (int i = 0; i < 4; i++)
    printf("  %-42s unwrapped %8.1f  wrapped %8.1f  added %+7.1f\n", name[i], r[i][0], r[i][1],
           r[i][2]);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200;
  MPI_Init(&argc, &argv);
  sp_log_set(quiet_log, NULL);
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  write_fn libc_write = libc ? (write_fn)dlsym(libc, "write") : NULL;
  if (!libc_write) return 1;
  char path[64];
  snprintf(path, sizeof path, "/dev/shm/bench_io_%d", (int)getpid());
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
  MPI_File fh;
  char mpath[80];
  snprintf(mpath, sizeof mpath, "%s.mpi", path);
  if (fd < 0 || MPI_File_open(MPI_COMM_SELF, mpath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                              &fh) != MPI_SUCCESS)
    return 1;
  target_t tg = {libc_write, fd, fh};
  run(n, &tg, "the other core idle");
  pthread_t t;
  pthread_create(&t, NULL, spin, NULL);
  run(n, &tg, "a thread spinning on the other core");
  spin_stop = 1;
  pthread_join(t, NULL);
  MPI_File_close(&fh);
  close(fd);
  unlink(path);
  unlink(mpath);
  sp_finalize();
  MPI_Finalize();
  return 0;
}
