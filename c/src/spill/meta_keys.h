/* meta_keys.h - the /metadata keys the library writes itself (layout.c,
 * aggregate_h5.c), which sp_metadata_set refuses (run_meta.c) and the
 * postprocessor leaves out of the run's parameters (postproc/common/
 * run_info.c). The one list of both: a key added here is refused by the
 * one and hidden by the other. No declarations, only the list. */
#ifndef SP_META_KEYS_H
#define SP_META_KEYS_H

/* A comma-separated initializer of string literals:
 * static const char *const keys[] = {SP_META_RESERVED_KEYS}; */
#define SP_META_RESERVED_KEYS                                                                \
  "mpi_size", "hostname", "timestamp", "library_version", "clock", "clock_source",           \
      "recovered_from_spill", "omp_threads", "omp_num_threads", "total_cores", "time_trace", \
      "events_lost", "scope_profiler_version"

#endif
