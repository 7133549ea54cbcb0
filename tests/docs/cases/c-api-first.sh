# docs/c-api.md, the first program: the continue inside SP_BLOCK leaves only
# the block (5 calls of each region); the extra stop is counted once and
# goes through the program's log function, not to stderr's default.
snippet c-api-first > first.c
"$CC" -std=c11 -Wall -Wextra -Werror first.c -o first -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
./first > out.txt 2> err.txt
cat out.txt err.txt
grep -E "^misuse 1, clock (tsc|monotonic), version [0-9]+\.[0-9]+\.[0-9]+$" out.txt
grep -x "finalize 0" out.txt
grep "^\[app\] level [0-2]: " err.txt
if grep "^scope-profiler:" err.txt; then exit 1; fi
check_profile c_api.h5 --ranks 1 --region solve --region halo --count solve=5 --count halo=5 \
  --nested halo:solve
