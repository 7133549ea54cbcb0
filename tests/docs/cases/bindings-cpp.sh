# bindings/README.md, the C++ program: the exception of step 3 still
# closes "halo" and "step"; every region has its four calls.
snippet bindings-cpp > main.cpp
"$CXX" -std=c++17 -Wall -Werror main.cpp -o app -I"$SP_PREFIX/include" -L"$SP_LIBDIR" \
  -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
./app
check_profile profiling_data.h5 --ranks 1 --region solve --region step --region halo \
  --count solve=4 --count step=4 --count halo=4 --nested step:solve --nested halo:step
