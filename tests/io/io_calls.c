/* io_calls.c - known I/O through POSIX, stdio, MPI-IO and HDF5 (sec2 and
 * MPI-IO drivers) on every rank, for SCOPE_PROFILER_PROFILE_IO=1 (issue 49).
 *
 * usage: io_calls DIR main|split|errors|many|crash
 *
 * crash: without MPI, the POSIX part, then exit without sp_finalize (the
 * exit flush keeps everything in the spill files, for scope-profiler-merge);
 * the tallies are written through syscall(), which is never recorded.
 *
 * Each call's region (the user region it runs in), name, file and bytes
 * as this program saw them (the return values) are tallied, and written
 * after MPI_Finalize (so not recorded) to DIR/expect_r<rank>.tsv:
 *   region <TAB> op <TAB> file <TAB> calls <TAB> bytes <TAB> bytes of those that did not fail
 * file "-" for a call without a file. check_io.py holds the profile to it.
 * errno is checked in here: unchanged by a recorded call that succeeds,
 * the call's own errno after one that fails. Exit status 1 on a mismatch. */
#define _GNU_SOURCE /* pread, pwrite, sigaction with -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <scope_profiler.h>

typedef struct {
  char region[16], op[32], file[512];
  long calls, bytes, moved; /* moved: the bytes of the calls that did not fail */
} tally_t;
static tally_t tallies[512];
static int ntallies, bad;
static const char *cur_region = "-";

static void tally(const char *op, const char *file, long bytes) {
  for (int i = 0; i < ntallies; i++) {
    tally_t *t = &tallies[i];
    if (!strcmp(t->region, cur_region) && !strcmp(t->op, op) && !strcmp(t->file, file)) {
      t->calls++;
      t->bytes += bytes;
      t->moved += bytes > 0 ? bytes : 0;
      return;
    }
  }
  tally_t *t = &tallies[ntallies++];
  snprintf(t->region, sizeof t->region, "%s", cur_region);
  snprintf(t->op, sizeof t->op, "%s", op);
  snprintf(t->file, sizeof t->file, "%s", file);
  t->calls = 1;
  t->bytes = bytes;
  t->moved = bytes > 0 ? bytes : 0;
}

static void want_errno(int got, int want, const char *what) {
  if (got != want) {
    fprintf(stderr, "io_calls: errno after %s is %d, want %d\n", what, got, want);
    bad = 1;
  }
}

static char buf[1 << 16];

static void posix_part(const char *dir, int rank) {
  char path[512];
  snprintf(path, sizeof path, "%s/posix_r%d.bin", dir, rank);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  tally("io:open", path, fd >= 0 ? 0 : -1);
  errno = 4321; /* a successful call leaves the program's errno alone */
  ssize_t r = write(fd, buf, 1000);
  want_errno(errno, 4321, "write");
  tally("io:write", path, r);
  r = write(fd, buf, 24 + rank);
  tally("io:write", path, r);
  r = pwrite(fd, buf, 100, 5000);
  tally("io:pwrite", path, r);
  struct iovec iov[2] = {{buf, 10}, {buf + 10, 20}};
  r = writev(fd, iov, 2);
  tally("io:writev", path, r);
  off_t o = lseek(fd, 0, SEEK_SET);
  tally("io:lseek", path, o >= 0 ? 0 : -1);
  r = read(fd, buf, 512);
  tally("io:read", path, r);
  r = pread(fd, buf, 10000, 4000); /* short: the file ends at 5100 */
  if (r != 1100) {
    fprintf(stderr, "io_calls: short pread gave %zd\n", r);
    bad = 1;
  }
  tally("io:pread", path, r);
  int rc = fsync(fd);
  tally("io:fsync", path, rc == 0 ? 0 : -1);
  rc = ftruncate(fd, 6000);
  tally("io:ftruncate", path, rc == 0 ? 0 : -1);
  rc = close(fd);
  tally("io:close", path, rc == 0 ? 0 : -1);
  /* the same path again: the same file */
  fd = open(path, O_RDONLY);
  tally("io:open", path, fd >= 0 ? 0 : -1);
  r = read(fd, buf, sizeof buf); /* the whole file: 6000 bytes */
  tally("io:read", path, r);
  r = read(fd, buf, sizeof buf); /* at its end: 0 */
  tally("io:read", path, r);
  rc = close(fd);
  tally("io:close", path, rc == 0 ? 0 : -1);
}

static void stdio_part(const char *dir, int rank) {
  char path[512];
  snprintf(path, sizeof path, "%s/stdio_r%d.txt", dir, rank);
  FILE *f = fopen(path, "w+");
  tally("io:fopen", path, f ? 0 : -1);
  int n = fprintf(f, "rank %d of the test, %s\n", rank, "hello");
  tally("io:fprintf", path, n);
  size_t k = fwrite(buf, 8, 50, f);
  tally("io:fwrite", path, (long)(k * 8));
  char line[32];
  snprintf(line, sizeof line, "line-%d\n", rank * 7);
  int p = fputs(line, f);
  tally("io:fputs", path, p >= 0 ? (long)strlen(line) : -1);
  int rc = fflush(f);
  tally("io:fflush", path, rc == 0 ? 0 : -1);
  rc = fseek(f, 0, SEEK_SET);
  tally("io:fseek", path, rc == 0 ? 0 : -1);
  k = fread(buf, 1, 100000, f); /* short: what the file holds */
  tally("io:fread", path, (long)k);
  rc = fclose(f);
  tally("io:fclose", path, rc == 0 ? 0 : -1);
}

static void mpiio_part(const char *dir, int rank, int size) {
  char path[512];
  snprintf(path, sizeof path, "%s/shared.dat", dir);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  tally("MPI_File_open", path, rc == MPI_SUCCESS ? 0 : -1);
  MPI_Status st;
  int cnt;
  rc = MPI_File_write_at(fh, (MPI_Offset)rank * 1024, buf, 256, MPI_INT, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  tally("MPI_File_write_at", path, cnt);
  rc = MPI_File_write_at_all(fh, (MPI_Offset)(size + rank) * 1024, buf, 100, MPI_DOUBLE,
                             MPI_STATUS_IGNORE);
  tally("MPI_File_write_at_all", path, rc == MPI_SUCCESS ? 800 : -1);
  rc = MPI_File_sync(fh);
  tally("MPI_File_sync", path, rc == MPI_SUCCESS ? 0 : -1);
  rc = MPI_File_read_at(fh, (MPI_Offset)((rank + 1) % size) * 1024, buf, 200, MPI_INT, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  tally("MPI_File_read_at", path, cnt);
  rc = MPI_File_read_at_all(fh, (MPI_Offset)size * 1024, buf, 64, MPI_CHAR, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  tally("MPI_File_read_at_all", path, cnt);
  rc = MPI_File_set_view(fh, (MPI_Offset)(2 * size + rank) * 4096, MPI_BYTE, MPI_BYTE, "native",
                         MPI_INFO_NULL);
  tally("MPI_File_set_view", path, rc == MPI_SUCCESS ? 0 : -1);
  rc = MPI_File_write_all(fh, buf, 3000, MPI_BYTE, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  tally("MPI_File_write_all", path, cnt);
  MPI_Request req;
  rc = MPI_File_iwrite(fh, buf, 10, MPI_INT, &req);
  tally("MPI_File_iwrite", path, rc == MPI_SUCCESS ? 40 : -1);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rc = MPI_File_close(&fh);
  tally("MPI_File_close", path, rc == MPI_SUCCESS ? 0 : -1);
}

/* Split collectives (begin: the bytes asked for; end: 0), get_size,
 * preallocate and delete, through the explicit offset, the individual and
 * the shared pointer. */
static void split_part(const char *dir, int rank, int size) {
  char path[512];
  snprintf(path, sizeof path, "%s/split.dat", dir);
  MPI_File fh;
  MPI_Status st;
  MPI_Offset fsize = 0;
#define OK0(rc) ((rc) == MPI_SUCCESS ? 0 : -1)
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  tally("MPI_File_open", path, OK0(rc));
  rc = MPI_File_preallocate(fh, 65536);
  tally("MPI_File_preallocate", path, OK0(rc));
  rc = MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * 1000, buf, 250, MPI_INT);
  tally("MPI_File_write_at_all_begin", path, rc == MPI_SUCCESS ? 1000 : -1);
  rc = MPI_File_write_at_all_end(fh, buf, &st);
  tally("MPI_File_write_at_all_end", path, OK0(rc));
  rc = MPI_File_read_at_all_begin(fh, (MPI_Offset)((rank + 1) % size) * 1000, buf, 100, MPI_DOUBLE);
  tally("MPI_File_read_at_all_begin", path, rc == MPI_SUCCESS ? 800 : -1);
  rc = MPI_File_read_at_all_end(fh, buf, MPI_STATUS_IGNORE);
  tally("MPI_File_read_at_all_end", path, OK0(rc));
  rc = MPI_File_get_size(fh, &fsize);
  tally("MPI_File_get_size", path, OK0(rc));
  if (fsize < 65536) {
    fprintf(stderr, "io_calls: MPI_File_get_size gave %lld\n", (long long)fsize);
    bad = 1;
  }
  rc = MPI_File_set_view(fh, (MPI_Offset)(8 + rank) * 4096, MPI_BYTE, MPI_BYTE, "native",
                         MPI_INFO_NULL);
  tally("MPI_File_set_view", path, OK0(rc));
  rc = MPI_File_write_all_begin(fh, buf, 3000, MPI_BYTE);
  tally("MPI_File_write_all_begin", path, rc == MPI_SUCCESS ? 3000 : -1);
  rc = MPI_File_write_all_end(fh, buf, &st);
  tally("MPI_File_write_all_end", path, OK0(rc));
  rc = MPI_File_seek(fh, 0, MPI_SEEK_SET);
  tally("MPI_File_seek", path, OK0(rc));
  rc = MPI_File_read_all_begin(fh, buf, 700, MPI_BYTE);
  tally("MPI_File_read_all_begin", path, rc == MPI_SUCCESS ? 700 : -1);
  rc = MPI_File_read_all_end(fh, buf, &st);
  tally("MPI_File_read_all_end", path, OK0(rc));
  /* the shared pointer: the same view on every rank */
  rc = MPI_File_set_view(fh, 16384, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  tally("MPI_File_set_view", path, OK0(rc));
  rc = MPI_File_write_ordered_begin(fh, buf, 100 + rank, MPI_CHAR);
  tally("MPI_File_write_ordered_begin", path, rc == MPI_SUCCESS ? 100 + rank : -1);
  rc = MPI_File_write_ordered_end(fh, buf, &st);
  tally("MPI_File_write_ordered_end", path, OK0(rc));
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET); /* not recorded */
  rc = MPI_File_read_ordered_begin(fh, buf, 50, MPI_SHORT);
  tally("MPI_File_read_ordered_begin", path, rc == MPI_SUCCESS ? 100 : -1);
  rc = MPI_File_read_ordered_end(fh, buf, MPI_STATUS_IGNORE);
  tally("MPI_File_read_ordered_end", path, OK0(rc));
  rc = MPI_File_close(&fh);
  tally("MPI_File_close", path, OK0(rc));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    rc = MPI_File_delete(path, MPI_INFO_NULL);
    tally("MPI_File_delete", path, OK0(rc));
  }
#undef OK0
}

/* HDF5 writes what it decides: check_io.py holds its records to the file it
 * left (sec2: every byte through pwrite/write) and to the calls' sums. */
static void hdf5_part(const char *dir, int rank, int size, int mpio) {
  char path[512];
  if (mpio)
    snprintf(path, sizeof path, "%s/h5_mpio.h5", dir);
  else
    snprintf(path, sizeof path, "%s/h5_sec2_r%d.h5", dir, rank);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (mpio)
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  else
    H5Pset_fapl_sec2(fapl);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hsize_t dims[1] = {(hsize_t)size * 10000};
  hid_t sp = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t start[1] = {(hsize_t)rank * 10000}, count[1] = {10000};
  hid_t fs = H5Dget_space(d);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, mpio ? start : (hsize_t[1]){0}, NULL, count, NULL);
  hid_t ms = H5Screate_simple(1, count, NULL);
  hid_t dx = H5Pcreate(H5P_DATASET_XFER);
  if (mpio) H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
  if (H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dx, buf) < 0) bad = 1;
  H5Pclose(dx);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
  H5Pclose(fapl);
}

static void on_alarm(int sig) { (void)sig; }

/* EBADF, ENOSPC (/dev/full), EINTR on a pipe: counted as seen. */
static void errors_part(int rank) {
  (void)rank;
  char path[512];
  errno = 0;
  ssize_t r = write(-1, buf, 10);
  want_errno(errno, EBADF, "write(-1)");
  tally("io:write", "-", r);
  r = read(987, buf, 10); /* never opened */
  want_errno(errno, EBADF, "read(987)");
  tally("io:read", "-", r);
  /* a full disk: /dev/full answers every write with ENOSPC */
  snprintf(path, sizeof path, "/dev/full");
  int fd = open(path, O_WRONLY);
  tally("io:open", path, fd >= 0 ? 0 : -1);
  errno = 0;
  r = write(fd, buf, 100);
  want_errno(errno, ENOSPC, "write to a full disk");
  tally("io:write", path, r);
  close(fd);
  tally("io:close", path, 0);
  int pfd[2];
  if (pipe(pfd) != 0) bad = 1;
  char name[32];
  snprintf(name, sizeof name, "<fd %d>", pfd[0]);
  char w[32];
  snprintf(name + strlen(name), 1, "%s", "");
  snprintf(w, sizeof w, "<fd %d>", pfd[1]);
  r = write(pfd[1], "x", 1);
  tally("io:write", w, r);
  r = read(pfd[0], buf, 1);
  tally("io:read", name, r);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm; /* no SA_RESTART: the read ends with EINTR */
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 0}, {0, 100000}};
  setitimer(ITIMER_REAL, &it, NULL);
  errno = 0;
  r = read(pfd[0], buf, 1); /* blocks until the signal */
  want_errno(errno, EINTR, "read interrupted");
  tally("io:read", name, r);
  close(pfd[0]);
  tally("io:close", name, 0);
  close(pfd[1]);
  tally("io:close", w, 0);
}

/* 1e5 files opened and closed: memory bounded, every call done. */
static void many_part(const char *dir, int rank, long n) {
  char path[512];
  struct rusage ru;
  long rss_at = 0;
  for (long i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/m%d_%ld", dir, rank, i % 7 == 0 ? i : i); /* distinct */
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "y", 1) != 1 || close(fd) != 0) bad = 1;
    unlink(path);
    if (i == n / 5) {
      getrusage(RUSAGE_SELF, &ru);
      rss_at = ru.ru_maxrss;
    }
  }
  getrusage(RUSAGE_SELF, &ru);
  printf("io_calls: rank %d: max RSS %ld KiB after %ld files, %ld KiB after %ld\n", rank, rss_at,
         n / 5, ru.ru_maxrss, n);
  /* 64 MiB: not per file (ASan's quarantine keeps freed memory: not held to it) */
  if (ru.ru_maxrss - rss_at > 64 * 1024 && !getenv("ASAN_OPTIONS")) {
    fprintf(stderr, "io_calls: RSS grew by %ld KiB over %ld files\n", ru.ru_maxrss - rss_at,
            n - n / 5);
    bad = 1;
  }
}

/* The tallies as lines of path, written with raw system calls. */
static void write_tallies(const char *path) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  char line[1024];
  for (int i = 0; fd >= 0 && i < ntallies; i++) {
    int n =
        snprintf(line, sizeof line, "%s\t%s\t%s\t%ld\t%ld\t%ld\n", tallies[i].region, tallies[i].op,
                 tallies[i].file, tallies[i].calls, tallies[i].bytes, tallies[i].moved);
    if (syscall(SYS_write, fd, line, (size_t)n) != n) bad = 1;
  }
  if (fd < 0 || syscall(SYS_close, fd) != 0) bad = 1;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const char *dir = argv[1], *what = argv[2];
  if (!strcmp(what, "crash")) { /* no MPI: a serial program that ends without sp_finalize */
    memset(buf, 'c', sizeof buf);
    sp_setup(NULL);
    /* with BUFFER_LIMIT=2 and ASYNC_FLUSH=0 these spill on this thread, outside
     * any I/O call: the spill file's creation and writes are the library's own */
    int ht = sp_region("tick");
    for (int i = 0; i < 10; i++) {
      sp_start(ht);
      sp_stop(ht);
    }
    cur_region = "posix";
    int hp = sp_region("posix");
    sp_start(hp);
    posix_part(dir, 0);
    sp_stop(hp);
    char path[512];
    snprintf(path, sizeof path, "%s/expect_r0.tsv", dir);
    write_tallies(path);
    exit(bad); /* the exit flush spills what is in memory and the file records */
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(buf, 'a' + rank, sizeof buf);
  sp_setup(NULL);
  static const char *const parts[] = {"posix",     "stdio",  "mpiio", "hdf5_sec2",
                                      "hdf5_mpio", "errors", "many",  "split"};
  int h[8];
  for (int i = 0; i < 8; i++) h[i] = sp_region(parts[i]);
#define PART(i, call)      \
  do {                     \
    cur_region = parts[i]; \
    sp_start(h[i]);        \
    call;                  \
    sp_stop(h[i]);         \
    cur_region = "-";      \
  } while (0)
  if (!strcmp(what, "main")) {
    PART(0, posix_part(dir, rank));
    PART(1, stdio_part(dir, rank));
    PART(2, mpiio_part(dir, rank, size));
    PART(3, hdf5_part(dir, rank, size, 0));
    PART(4, hdf5_part(dir, rank, size, 1));
  } else if (!strcmp(what, "split")) {
    PART(7, split_part(dir, rank, size));
  } else if (!strcmp(what, "errors")) {
    PART(5, errors_part(rank));
  } else {
    PART(6, many_part(dir, rank, 100000));
  }
  if (sp_finalize() != 0) bad = 1; /* the profile is written, recording ends */
  MPI_Finalize();
  char path[512];
  snprintf(path, sizeof path, "%s/expect_r%d.tsv", dir, rank);
  FILE *f = fopen(path, "w");
  for (int i = 0; f && i < ntallies; i++)
    fprintf(f, "%s\t%s\t%s\t%ld\t%ld\t%ld\n", tallies[i].region, tallies[i].op, tallies[i].file,
            tallies[i].calls, tallies[i].bytes, tallies[i].moved);
  if (!f || fclose(f) != 0) bad = 1;
  return bad;
}
