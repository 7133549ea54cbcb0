# docs/automatic-regions.md, the two gcc lines, with the prefix on the
# compiler's and the loader's search paths (as a system install is).
LIBRARY_PATH=$SP_LIBDIR
LD_LIBRARY_PATH=$SP_LIBDIR
export LIBRARY_PATH LD_LIBRARY_PATH
cp "$SP_SRC/tests/install/consumers/c/instrument.c" prog.c
snippet auto-instrument > build.sh
sh -e build.sh
SCOPE_PROFILER_FILE=auto.h5 ./a.out
check_profile auto.h5 --ranks 1 --region main --region consumer_work --count consumer_work=5
