# docs/otf2.md "In Vampir, Scalasca and the Score-P tools": the export of a
# profile of 4 ranks written by docs/fortran.md's MPI program, read back
# with python3-otf2.
ranks_profile 4
mv ranks.h5 profiling_data.h5
PATH=$SP_PREFIX/bin:$PATH
snippet readme-otf2 > commands.sh
sh -e commands.sh > out.txt
grep -q "^ENTER " out.txt
"$SP_PYTHON" - <<'PY'
import otf2
with otf2.reader.open("trace/traces.otf2") as t:
    groups = sorted(g.name for g in t.definitions.location_groups)
    assert groups == [f"MPI Rank {r}" for r in range(4)], groups
    assert "exchange" in {r.name for r in t.definitions.regions}
    assert sum(1 for _ in t.events) > 0
PY
