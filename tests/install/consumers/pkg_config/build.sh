#!/bin/sh
# Builds one consumer the way a Makefile user would: compiler flags and
# libraries from `pkg-config --cflags --libs <module>` only.
#
# Usage: build.sh <compiler> <module> <source> <output> [extra compiler flags...]
# Environment: PKG_CONFIG (default pkg-config), PKG_CONFIG_PATH (the installed
# prefix's lib/pkgconfig), SP_EXPECT_PREFIX (the module must come from
# there), SP_PC_STATIC=1 (link the static library: --static).
set -eu
cc=$1 module=$2 src=$3 out=$4
shift 4
pkgconfig=${PKG_CONFIG:-pkg-config}
static=
if [ "${SP_PC_STATIC:-0}" = 1 ]; then static=--static; fi

# A copy of the module installed elsewhere must not make the test pass.
libdir=$("$pkgconfig" --variable=libdir "$module")
if [ -n "${SP_EXPECT_PREFIX:-}" ]; then
  real_libdir=$(cd "$libdir" && pwd -P)
  real_prefix=$(cd "$SP_EXPECT_PREFIX" && pwd -P)
  case "$real_libdir" in
    "$real_prefix"/*) ;;
    *) echo "build.sh: $module has libdir $real_libdir, expected under $real_prefix" >&2; exit 1 ;;
  esac
fi

# The Fortran module's .mod files are where the .pc file says.
if [ "$module" = scope-profiler-fortran ]; then
  moddir=$("$pkgconfig" --variable=fortran_moddir "$module")
  if [ ! -f "$moddir/scope_profiler.mod" ]; then
    echo "build.sh: no scope_profiler.mod in fortran_moddir '$moddir'" >&2
    exit 1
  fi
fi

cflags=$("$pkgconfig" --cflags $static "$module")
libs=$("$pkgconfig" --libs $static "$module")
mkdir -p "$(dirname "$out")"
# The prefix is not on the loader's path: record it in the program.
set -x
# shellcheck disable=SC2086  # flags are word lists by design
"$cc" "$@" $cflags "$src" -o "$out" $libs "-Wl,-rpath,$libdir"
