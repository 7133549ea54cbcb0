# docs/recovery.md: the export, then a program killed by SIGTERM: its calls are in
# the spill files (merged here to count them); without the export they
# would not be (the buffers are far from full).
snippet readme-flush-signals > env.sh
. ./env.sh
term_victim
"$SP_PREFIX/bin/scope-profiler-merge" -o merged.h5 profiling_data.h5.spill/
check_profile merged.h5 --ranks 1 --count "victim step=10"
