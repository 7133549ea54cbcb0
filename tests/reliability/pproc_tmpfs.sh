#!/bin/sh
# pproc_tmpfs.sh MNT SIZE MODE PPROC CHECK... - runs the command CHECK...
# with a SIZE tmpfs mounted at MNT in a private mount namespace (the mount
# goes away with the command). MODE: "full" leaves it writable (a disk that
# fills up), "chart" first draws plain.h5 into MNT/d with PPROC (an older,
# good chart that a failed run must keep), "ro" remounts it read-only
# (root ignores permission bits). Exit 77 (skipped) where mounting is
# refused (not root, no user namespaces).
mnt=$1 size=$2 mode=$3 pproc=$4
shift 4
mkdir -p "$mnt" || exit 1
exec unshare -m sh -c '
  mnt=$1 size=$2 mode=$3 pproc=$4
  shift 4
  mount --make-rprivate / 2>/dev/null && mount -t tmpfs -o "size=$size" tmpfs "$mnt" || exit 77
  case $mode in
    chart) "$pproc" plain.h5 -q -o "$mnt/d" --plots gantt || exit 1 ;;
    ro) mount -o remount,ro "$mnt" || exit 77 ;;
  esac
  exec "$@"' sh "$mnt" "$size" "$mode" "$pproc" "$@"
