# bindings/README.md "The shortest programs", the C++ snippet: 10 calls of
# "compute", written when main ends.
snippet readme-cpp > main.cpp
"$CXX" -std=c++17 -Wall -Werror main.cpp -o app -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
./app
check_profile profiling_data.h5 --ranks 1 --region compute --count compute=10
