# README.md "Where the time goes": the four commands on a profile of 4 ranks
# written by docs/fortran.md's MPI program.
ranks_profile 4
cp ranks.h5 profiling_data.h5
cp ranks.h5 base.h5
mv ranks.h5 new.h5
PATH=$SP_PREFIX/bin:$PATH
snippet readme-results > commands.sh
sh -e commands.sh > out.txt
# The summary's header (names stay one field in TSV), the tree, the charts and both JSON files.
grep -q "^calls	total_s	self_s	" out.txt
grep -q "imbalance" out.txt
grep -q "exchange" out.txt
test -s figures/gantt_plot.png
test -s figures/rank_heatmap_plot.png
"$SP_PYTHON" - <<'PY'
import json
s = json.load(open("figures/region_statistics.json"))
assert "exchange" in s["files"][0]["region_statistics"], s["files"][0]
t = json.load(open("figures/call_tree.json"))
assert any(n["path"][-1] == "exchange" for n in t["nodes"]), t  # one file: the nodes at the top
PY
