/* test_columnar.c - one MPI program whose events the columnar layout and
 * the rank<N> layout must hold alike: test_columnar FILE.
 *
 * Run with SCOPE_PROFILER_LAYOUT=both, finalize writes FILE (rank<N>
 * groups) and FILE.columnar.h5 from the same events; check_columnar.py
 * compares them. With a second argument "config" the layout is set in
 * sp_config instead (SP_LAYOUT_COLUMNAR): FILE is columnar; with "invalid"
 * sp_setup must refuse a layout out of range (SP_EINVAL) and the program
 * ends there; with "killed" it records, spills, writes FILE.ready.<rank>
 * and spins until killed (killed_merge.py SIGKILLs it). Rank 0: a region only it has, recursion, two threads, a
 * region with more calls than the buffer holds (spilled) and a name with
 * a slash and a space. The last rank of several records nothing. Every
 * recording rank sends its neighbour a message (MPI call regions with
 * bytes and peers where SCOPE_PROFILER_PROFILE_MPI=1), sets run metadata
 * and places regions in the source (sp_region_at); with
 * SCOPE_PROFILER_SAMPLE_MS it samples and spins a while (a few samples). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_profiler.h"

#define CHECK(x)                                                                               \
  do {                                                                                         \
    int rc_ = (x);                                                                             \
    if (rc_ != 0) {                                                                            \
      fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #x, rc_, sp_strerror(rc_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

static volatile double sink;

static void spin(int n) {
  for (int i = 0; i < n; i++) sink += i * 0.5;
}

static void recurse(int depth) {
  sp_start_name("recurse");
  spin(200);
  if (depth > 0) recurse(depth - 1);
  sp_stop_name("recurse");
}

static void *worker(void *arg) {
  int calls = *(int *)arg;
  for (int i = 0; i < calls; i++) {
    sp_start_name("worker");
    spin(100);
    sp_start_name("work_inner");
    spin(100);
    sp_stop_name("work_inner");
    sp_stop_name("worker");
  }
  return NULL;
}

int main(int argc, char **argv) {
  const int config = argc == 3 && strcmp(argv[2], "config") == 0;
  const int invalid = argc == 3 && strcmp(argv[2], "invalid") == 0;
  const int killed = argc == 3 && strcmp(argv[2], "killed") == 0;
  if (argc != 2 && !config && !invalid && !killed) {
    fprintf(stderr, "usage: test_columnar FILE [config|invalid|killed]\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_config c;
  sp_config_init(&c);
  c.file_path = argv[1];
  c.buffer_limit = 64; /* "many" spills on the way */
  if (config) c.layout = SP_LAYOUT_COLUMNAR;
  if (invalid) {
    c.layout = SP_LAYOUT_BOTH + 1;
    int rc = sp_setup(&c);
    printf("sp_setup with layout %d: %s\n", c.layout, sp_err_name(rc));
    MPI_Finalize();
    return rc == SP_EINVAL ? 0 : 1;
  }
  CHECK(sp_setup(&c));
  const int idle = size > 1 && rank == size - 1;
  /* Run metadata: one key alike on every rank, one that differs, one of
   * each type, one only rank 1 sets; source locations (one region placed
   * by every rank, one by rank 0 only). */
  CHECK(sp_metadata_set("case", "columnar extras"));
  CHECK(sp_metadata_set_int("rank_seen", 100 + rank));
  CHECK(sp_metadata_set_real("ratio", rank == 0 ? 0.5 : 0.25 * rank));
  if (rank == 1) CHECK(sp_metadata_set("only_rank1", "yes"));
  int placed = sp_region_at("placed", "src/solver.c", 42);
  if (placed < 0) CHECK(placed);
  if (!idle) {
    sp_start(placed);
    spin(1000);
    sp_stop(placed);
  }
  if (!idle && rank == 0) {
    int h = sp_region_at("placed_rank0", "src/rank0 only.f90", 7);
    if (h < 0) CHECK(h);
    sp_start(h);
    sp_stop(h);
  }
  if (!idle) {
    for (int it = 0; it < 5; it++) {
      sp_start_name("outer");
      sp_start_name("inner");
      spin(300);
      sp_stop_name("inner");
      recurse(3);
      sp_stop_name("outer");
    }
    for (int i = 0; i < 300; i++) {
      sp_start_name("solve/step 1");
      sp_stop_name("solve/step 1");
    }
    if (rank == 0) {
      sp_start_name("only_on_rank0");
      spin(50);
      sp_stop_name("only_on_rank0");
      pthread_t t[2];
      int calls[2] = {20, 30};
      for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, worker, &calls[k]);
      for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    }
  }
  /* A ring among the recording ranks: bytes and peers differ per rank. */
  const int ring = idle ? 0 : size > 1 ? size - 1 : 1;
  if (!idle && ring >= 1) {
    int out[64] = {rank}, in[64];
    int n = 1 + rank % 7;
    MPI_Sendrecv(out, n, MPI_INT, (rank + 1) % ring, 7, in, 64, MPI_INT, (rank + ring - 1) % ring,
                 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (killed) { /* spills on, then says so and waits for its SIGKILL */
    for (int i = 0; i < 3000; i++) {
      sp_start_name("filler");
      sp_stop_name("filler");
      if (i % 10 == 0 && !idle) { /* enough calls to be spilled, with their source */
        sp_start(placed);
        sp_stop(placed);
      }
    }
    /* Bytes and peers, spilled: they go to the spill file 4096 at a time
     * (mpi_extra.c's SP_X_CAP), whatever the events' buffer_limit. */
    for (int i = 0; !idle && ring >= 1 && i < 4200; i++) {
      int out[8] = {rank}, in[8];
      MPI_Sendrecv(out, 1 + i % 8, MPI_INT, (rank + 1) % ring, 8, in, 8, MPI_INT,
                   (rank + ring - 1) % ring, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    char ready[4200];
    snprintf(ready, sizeof ready, "%s.ready.%d", argv[1], rank);
    FILE *f = fopen(ready, "w"); /* its pid: killed_merge.py kills each rank */
    if (f) fprintf(f, "%ld\n", (long)getpid());
    if (f) fclose(f);
    for (;;) spin(100000); /* killed here, sp_finalize never runs */
  }
  const char *ms = getenv("SCOPE_PROFILER_SAMPLE_MS");
  if (ms && atoi(ms) > 0) { /* a few samples on every rank, the idle one too */
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.03 * atoi(ms)) spin(1000);
  }
  CHECK(sp_finalize());
  MPI_Finalize();
  return 0;
}
