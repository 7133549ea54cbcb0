# docs/install.md: pkg-config from a prefix outside the system's paths, without
# rpath: the program runs with LD_LIBRARY_PATH as the snippet sets it.
home_prefix
unset PKG_CONFIG_PATH LD_LIBRARY_PATH
eval "$(snippet readme-pkg-config | grep '^export PKG_CONFIG_PATH=')"
snippet readme-c > fragment.c
c_program fragment.c > app.c
snippet readme-ld-library-path > commands.sh
sh -e commands.sh
check_profile profiling_data.h5 --ranks 1 --region compute --region io --count compute=3 --count io=3
