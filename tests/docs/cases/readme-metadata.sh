# docs/metrics.md "Run metadata and source locations": the fragment inside a main(),
# linked against the installed library; h5py reads the keys with their
# types and the region's source attributes (app.c and the macro's line).
snippet readme-metadata > fragment.c
c_program fragment.c > app.c
"$CC" -std=c11 -Wall -Werror app.c -o app -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
./app
line=$(grep -n 'SP_REGION_HERE("solve")' app.c | cut -d: -f1)
"$SP_PYTHON" - "$line" <<'PY'
import sys
import h5py
import numpy as np
f = h5py.File("profiling_data.h5", "r")
m = f["metadata"].attrs
assert m["input"] == "grid_3d.nml", m["input"]
assert m["work_per_rank"] == 1000000 and m["work_per_rank"].dtype == np.int64
assert m["dt"] == 0.1 and m["dt"].dtype == np.float64
g = f["rank0/regions/solve"].attrs
assert g["source_file"] == "app.c", g["source_file"]
assert g["source_lineno"] == int(sys.argv[1]), (g["source_lineno"], sys.argv[1])
print("metadata and source ok")
PY
