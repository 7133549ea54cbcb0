/* random.c - random numbers for names and ids: the run id, a temporary
 * file's name (write/out_temp.c), an MPI job's id (mpi/mpi_glue.c). */
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "sp_internal.h"

uint64_t sp__random64(void) {
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ r;
}
