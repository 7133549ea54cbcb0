#!/bin/sh
# Runs the documentation case NAME: tests/docs/cases/NAME.sh, in a fresh
# directory $SP_WORK/NAME, with the helpers below. The case takes its code
# from the documentation (`snippet NAME`), builds it against the installed
# prefix, runs it and checks what it wrote.
#
# Usage: run_case.sh NAME
# Environment (set by tests/docs/CMakeLists.txt): SP_SRC (source tree),
# SP_PREFIX (installed prefix), SP_WORK, SP_PYTHON (python3 with h5py),
# SP_CHECK_PROFILE, SP_PYTHONPATH, SP_MPI (1 when the library has MPI),
# MPIEXEC, CC, CXX, FC, SP_SANITIZE_FLAGS.
set -eu
name=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$SP_WORK/$name
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# A sanitized library (SP_SANITIZE_FLAGS, e.g. -fsanitize=address,undefined)
# needs its programs built with the same flags: the compilers the snippets
# name (cc, gcc, c++, gfortran) become wrappers that add them.
if [ -n "${SP_SANITIZE_FLAGS:-}" ]; then
  mkdir -p "$work/bin"
  for tool in cc:"$CC" gcc:"$CC" c++:"$CXX" g++:"$CXX" gfortran:"$FC"; do
    real=${tool#*:}
    [ -n "$real" ] || continue
    printf '#!/bin/sh\nexec %s %s "$@"\n' "$real" "$SP_SANITIZE_FLAGS" > "$work/bin/${tool%%:*}"
    chmod +x "$work/bin/${tool%%:*}"
  done
  PATH=$work/bin:$PATH
  CC=$work/bin/cc CXX=$work/bin/c++ FC=$work/bin/gfortran
  export PATH CC CXX FC
fi

# snippet NAME: the code block <!-- snippet: NAME --> of the documentation.
snippet() { "$SP_PYTHON" "$here/snippets.py" get "$SP_SRC" "$1"; }

# check_profile FILE ARGS...: tests/common/check_profile.py (h5py).
check_profile() { "$SP_PYTHON" "$SP_CHECK_PROFILE" "$@"; }

# home_prefix: HOME becomes ./home, where opt/scope-profiler is the
# installed prefix, so that commands written for $HOME/opt/scope-profiler
# run unchanged against a prefix outside the system's paths.
home_prefix() {
  mkdir -p "$work/home/opt"
  ln -s "$SP_PREFIX" "$work/home/opt/scope-profiler"
  HOME=$work/home
  export HOME
}

# c_program FRAGMENT: a C file from a fragment of statements: its
# #include lines first, then stubs.c from this directory, then the rest
# inside main().
c_program() {
  grep '^#include' "$1" || true
  cat "$here/stubs.c"
  echo 'int main(void) {'
  grep -v '^#include' "$1"
  echo 'return 0;'
  echo '}'
}

# fortran_build SOURCE EXE: compiles a Fortran program with the flags of
# scope-profiler-fortran.pc from the prefix, the library path recorded.
fortran_build() {
  PKG_CONFIG_PATH=$SP_LIBDIR/pkgconfig
  export PKG_CONFIG_PATH
  "$FC" -Wall -Werror "$1" -o "$2" $(pkg-config --cflags --libs scope-profiler-fortran) \
    -Wl,-rpath,"$SP_LIBDIR"
}

# ranks_profile N: ./ranks.h5 from docs/fortran.md's MPI program on N ranks.
ranks_profile() {
  snippet fortran-mpi > ranks.f90
  fortran_build ranks.f90 ranks
  "$MPIEXEC" -n "$1" ./ranks
}

# heat_build: builds examples/fortran against the prefix with the
# commands of examples/fortran/README.md (the heat-build block), in
# ./build-heat.
heat_build() {
  ln -sfn "$SP_SRC/examples" examples
  snippet heat-build | sed "s|/path/to/scope-profiler/prefix|$SP_PREFIX|g" > build-heat.sh
  sh -e build-heat.sh
}

# term_victim: builds term_victim.c against the prefix and runs it in
# the current directory; it must die of SIGTERM (exit status 143).
term_victim() {
  "$CC" -std=c11 "$here/term_victim.c" -o term_victim -I"$SP_PREFIX/include" \
    -L"$SP_LIBDIR" -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
  rc=0
  ./term_victim || rc=$?
  if [ "$rc" != 143 ]; then
    echo "term_victim: exit status $rc, expected 143 (SIGTERM)" >&2
    return 1
  fi
}

# The snippets are written for interactive shells, where unset variables
# expand to nothing ($PKG_CONFIG_PATH): errors stop the case, unset
# variables do not.
set +u -x
. "$here/cases/$name.sh"
set +x
echo "docs case $name: ok"
