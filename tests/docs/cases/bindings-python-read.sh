# bindings/README.md, the reading session of the reference tool with the
# installed package: a two-rank profile with solver, rhs and io regions is
# recorded first (rank 1 never runs "rhs"), then the documented session runs
# as written except show=True, which needs a display (plot_gantt raises
# RuntimeError without one): here show=False, the PNG is checked instead.
PYTHONPATH=$SP_PYTHONPATH
export PYTHONPATH
cat > record.py <<'PY'
import scope_profiler_native as spn
spn.setup(file_path="profiling_data.h5")
spn.mpi_init()

import os
me = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
for step in range(5):
    with spn.region("solver_step"):
        if me == 0:
            with spn.region("rhs"):
                sum(range(20000))
        with spn.region("io"):
            pass
spn.finalize()
PY
"$MPIEXEC" -n 2 "$SP_PYTHON" record.py
snippet bindings-python-read | sed 's/show=True/show=False/' > session.py
grep -q "show=False" session.py
"$SP_PYTHON" session.py | tee out.txt
grep -qx "2" out.txt
grep -Eq "^solver_step: 5 calls, avg [0-9]+\.[0-9]{6} s$" out.txt
grep -Eq "^rhs: 5 calls, avg [0-9]+\.[0-9]{6} s$" out.txt
grep -qx "Plotting Gantt chart for ranks: \[0, 1\]" out.txt
"$SP_PYTHON" - <<'PY'
import sys
sys.path.insert(0, __import__("os").environ["SP_SRC"] + "/tests/postproc")
from png_read import read_png
img = read_png("gantt.png")[:, :, :3]
dark = int((img.min(axis=2) < 250).sum())
print("gantt.png", img.shape, dark)
assert dark > 2000, dark
PY
