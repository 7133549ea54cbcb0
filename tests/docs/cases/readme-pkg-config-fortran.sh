# docs/install.md: the Fortran line, after the PKG_CONFIG_PATH export of the C
# block, on the first program of docs/fortran.md.
home_prefix
unset PKG_CONFIG_PATH LD_LIBRARY_PATH
eval "$(snippet readme-pkg-config | grep '^export PKG_CONFIG_PATH=')"
snippet fortran-first > app.f90
snippet readme-pkg-config-fortran > commands.sh
sh -e commands.sh
readelf -d app | grep -E "R(UN)?PATH.*$HOME/opt/scope-profiler"
./app
check_profile profiling_data.h5 --ranks 1 --region compute --region output --count compute=10 --count output=1
