# docs/install.md "With CMake": the two lines in a C project that declares
# cmake_minimum_required(VERSION 3.0), found through CMAKE_PREFIX_PATH.
snippet readme-c > fragment.c
c_program fragment.c > app.c
cat > CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.0)
project(readme_cmake C)
add_executable(app app.c)
CMAKE
snippet readme-cmake >> CMakeLists.txt
cmake -S . -B build -DCMAKE_PREFIX_PATH="$SP_PREFIX" -DCMAKE_C_COMPILER="$CC"
cmake --build build
./build/app
check_profile profiling_data.h5 --ranks 1 --region compute --region io --count compute=3 --count io=3
