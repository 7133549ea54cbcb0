# docs/profile-mode.md "Using it": the fragment inside a main(); the report of the
# first 50 steps and the final file of the last 50, read with h5py.
snippet readme-profile > fragment.c
c_program fragment.c > app.c
"$CC" -std=c11 -Wall -Werror app.c -o app -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
./app > out.txt
grep -q '^step: 50 calls, longest [1-9][0-9]* ns$' out.txt
"$SP_PYTHON" "$SP_SRC/tests/profile/check_counts.py" first_half.h5 1 step=50 compute=50
"$SP_PYTHON" "$SP_SRC/tests/profile/check_counts.py" profiling_data.h5 1 step=50 compute=50
