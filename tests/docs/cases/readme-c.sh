# README "Using it" (C): the fragment inside a main(), linked against
# the installed library; its two regions are in the file.
snippet readme-c > fragment.c
c_program fragment.c > app.c
"$CC" -std=c11 -Wall -Werror app.c -o app -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
./app
check_profile profiling_data.h5 --ranks 1 --region compute --region io --count compute=3 --count io=3
