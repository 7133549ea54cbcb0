# bindings/README.md, the CMake lines in a C++-only project declaring
# cmake_minimum_required(VERSION 3.0), on the C++ program above.
snippet bindings-cpp > main.cpp
printf 'cmake_minimum_required(VERSION 3.0)\nproject(app CXX)\n' > CMakeLists.txt
snippet bindings-cmake >> CMakeLists.txt
cmake -S . -B build -DCMAKE_PREFIX_PATH="$SP_PREFIX" -DCMAKE_CXX_COMPILER="$CXX"
cmake --build build
./build/app
check_profile profiling_data.h5 --ranks 1 --region solve --region step --region halo \
  --count solve=4 --count step=4 --count halo=4
