# docs/recovery.md "When a job dies": a run killed before sp_finalize, then each of
# the two merge command lines of the block on its spill directory.
PATH=$SP_PREFIX/bin:$PATH
SCOPE_PROFILER_FLUSH_SIGNALS=TERM term_victim
snippet readme-merge | grep -v '^#' > commands.txt
test "$(wc -l < commands.txt)" = 2
while read -r command; do
  rm -f profiling_data.h5
  sh -ec "$command"
  # The calls made before the signal, recovered; the input left as it was.
  check_profile profiling_data.h5 --ranks 1 --count "victim step=10"
  test -n "$(ls profiling_data.h5.spill)"
done < commands.txt
