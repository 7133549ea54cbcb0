# docs/automatic-regions.md, the CMake lines in a C project declaring
# cmake_minimum_required(VERSION 3.0).
cp "$SP_SRC/tests/install/consumers/c/instrument.c" prog.c
printf 'cmake_minimum_required(VERSION 3.0)\nproject(prog C)\nadd_executable(prog prog.c)\n' > CMakeLists.txt
snippet auto-instrument-cmake >> CMakeLists.txt
cmake -S . -B build -DCMAKE_PREFIX_PATH="$SP_PREFIX" -DCMAKE_C_COMPILER="$CC"
cmake --build build
SCOPE_PROFILER_FILE=auto.h5 ./build/prog
check_profile auto.h5 --ranks 1 --region main --region consumer_work --count consumer_work=5
