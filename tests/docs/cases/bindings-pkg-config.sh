# bindings/README.md, the C++ program built by hand with pkg-config.
unset LD_LIBRARY_PATH
PKG_CONFIG_PATH=$SP_LIBDIR/pkgconfig
export PKG_CONFIG_PATH
snippet bindings-cpp > main.cpp
snippet bindings-pkg-config > build.sh
sh -e build.sh
./app
check_profile profiling_data.h5 --ranks 1 --count solve=4 --count step=4 --count halo=4
