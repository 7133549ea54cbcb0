#!/bin/sh
# otf2_disk_full.sh PPROC FILE.h5 MNT - --export otf2 on a full disk.
# In a private mount namespace, on a 256 KiB tmpfs at MNT: the export of
# FILE.h5 (about 0.5 MB of events for mid.h5, more for the stream file, whose
# event writes themselves fail) must fail with exit 3, say
# that no archive was written, and leave none of its files behind (a half
# archive would block the next export into that DIR).
# Exit 77 (skipped) where mounting is refused (not root, no namespaces).
pproc=$1 file=$2 mnt=$3
mkdir -p "$mnt" || exit 1
exec unshare -m sh -c '
  pproc=$1 file=$2 mnt=$3
  mount --make-rprivate / 2>/dev/null && mount -t tmpfs -o size=256k tmpfs "$mnt" || exit 77
  "$pproc" "$file" --export otf2 -o "$mnt/d" 2> "$mnt.err"
  rc=$?
  cat "$mnt.err"
  [ $rc -eq 3 ] || { echo "FAIL: exit $rc, expected 3"; exit 1; }
  grep -q "^scope-profiler-pproc: OTF2: " "$mnt.err" || { echo "FAIL: no OTF2 message"; exit 1; }
  grep -q "^scope-profiler-pproc: $mnt/d: no OTF2 archive written$" "$mnt.err" ||
    { echo "FAIL: message"; exit 1; }
  [ -z "$(ls -A "$mnt/d")" ] || { echo "FAIL: left behind:"; ls -AR "$mnt/d"; exit 1; }
  echo "PASS: exit 3, nothing left behind"
' sh "$pproc" "$file" "$mnt"
