# postproc/README.md, the first commands, on a profile of 7 ranks (the
# csv line selects ranks 0 2 5-6) written by docs/fortran.md's MPI program.
ranks_profile 7
mv ranks.h5 profiling_data.h5
PATH=$SP_PREFIX/bin:$PATH
snippet pproc-commands > commands.sh
sh -e commands.sh
test -s figures/gantt_plot.png
test -s trace.json
"$SP_PYTHON" -c 'import json,sys; json.load(open("trace.json"))'
# The csv holds ranks 0, 2, 5 and 6, one interval of "exchange" each.
test "$(grep -c exchange intervals.csv)" = 4
# The tsv summary: one header line with the exclusive-time column, one row per region.
head -n 1 summary.tsv | grep -q "$(printf 'self_s\t')"
grep -q "$(printf '\texchange$')" summary.tsv
