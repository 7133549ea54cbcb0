# postproc/README.md, the reader library: the fragment inside a main(),
# on the profile of the README's C program ("compute", 3 calls, first).
snippet readme-c > app_fragment.c
c_program app_fragment.c > app.c
"$CC" -std=c11 app.c -o app -I"$SP_PREFIX/include" -L"$SP_LIBDIR" -lscope_profiler \
  -Wl,-rpath,"$SP_LIBDIR"
./app
snippet pproc-reader > fragment.c
c_program fragment.c > reader.c
"$CC" -std=c11 -Wall -Werror reader.c -o reader -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler_reader -Wl,-rpath,"$SP_LIBDIR"
./reader | tee out.txt
grep -E "^compute: 3 calls, mean [0-9.e+-]+ s$" out.txt
