# postproc/README.md, the analysis commands (tree, several files, compare,
# check) on profiles of 4 ranks written by docs/fortran.md's MPI program.
ranks_profile 4
mkdir -p runs
cp ranks.h5 profiling_data.h5
cp ranks.h5 runs/a.h5
cp ranks.h5 runs/b.h5
cp ranks.h5 run_4.h5
cp ranks.h5 run_8.h5
cp ranks.h5 base.h5
mv ranks.h5 new.h5
PATH=$SP_PREFIX/bin:$PATH
snippet pproc-analysis > commands.sh
sh -e commands.sh > out.txt
grep -q exchange out.txt
# One file block per run in the JSON files, every region of the run in each.
"$SP_PYTHON" - <<'PY'
import json
s = json.load(open("stats/region_statistics.json"))
assert [f["label"] for f in s["files"]] == ["a", "b"], s["files"]
assert "exchange" in s["files"][0]["region_statistics"], s["files"][0]
t = json.load(open("stats/call_tree.json"))
assert any(n["path"][-1] == "exchange" for n in t["files"][0]["nodes"]), t
PY
