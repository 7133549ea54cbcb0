# docs/install.md: pkg-config from a prefix outside the system's paths, with rpath.
# $HOME/opt/scope-profiler is the installed prefix; nothing else points
# there (no PKG_CONFIG_PATH, no LD_LIBRARY_PATH before the snippet).
home_prefix
unset PKG_CONFIG_PATH LD_LIBRARY_PATH
snippet readme-c > fragment.c
c_program fragment.c > app.c
snippet readme-pkg-config > commands.sh
sh -e commands.sh
# The program found the library through the recorded path, under $HOME.
readelf -d app | grep -E "R(UN)?PATH.*$HOME/opt/scope-profiler"
check_profile profiling_data.h5 --ranks 1 --region compute --region io --count compute=3 --count io=3
