/* nvtx_mpi.c - an MPI program annotated with NVTX only, run on 2 ranks
 * with NVTX_INJECTION64_PATH=libscope_profiler_nvtx.so: one file with
 * both ranks, rank r holding
 *   rank_work (r + 2) > mpi_step (2 per rank_work), exchange (1) with a
 *   barrier inside, and mark::done (1) */
#include <mpi.h>
#include <nvtx3/nvToolsExt.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < rank + 2; i++) {
    nvtxRangePushA("rank_work");
    for (int j = 0; j < 2; j++) {
      nvtxRangePushA("mpi_step");
      nvtxRangePop();
    }
    nvtxRangePop();
  }
  nvtxRangePushA("exchange");
  MPI_Barrier(MPI_COMM_WORLD);
  nvtxRangePop();
  nvtxMarkA("done");
  MPI_Finalize();
  return 0;
}
