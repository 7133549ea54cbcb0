#!/bin/sh
# in_tmpfs.sh DIR SIZE CMD...: runs CMD in a private mount namespace with a
# tmpfs of SIZE mounted at DIR, so that every process CMD starts (all the
# ranks under mpirun) sees the same small disk; the mount disappears with
# them. Exit 77 (skipped) where unshare or mount is refused.
dir=$1
size=$2
shift 2
mkdir -p "$dir" || exit 1
unshare -m --propagation private true 2>/dev/null || { echo "skipped: unshare -m refused"; exit 77; }
exec unshare -m --propagation private sh -c \
  'mount -t tmpfs -o size="$1" tmpfs "$2" || { echo "skipped: mount refused"; exit 77; }
   shift 2
   exec "$@"' sh "$size" "$dir" "$@"
