#!/bin/sh
# html_disk_full.sh PPROC SMALL.h5 LARGE.h5 MNT - report.html on a full disk.
# In a private mount namespace, on a 1 MiB tmpfs at MNT: the report of
# SMALL.h5 is written, then the report of LARGE.h5 with every lane binned
# (3.7 MB for mid.h5, after 0.2 MB of JSON files -o also writes) must fail
# with exit 3 as soon as a write fails, leave the older report as it was
# and no temporary file.
# Exit 77 (skipped) where mounting is refused (not root, no namespaces).
pproc=$1 small=$2 large=$3 mnt=$4
mkdir -p "$mnt" || exit 1
exec unshare -m sh -c '
  pproc=$1 small=$2 large=$3 mnt=$4
  mount --make-rprivate / 2>/dev/null && mount -t tmpfs -o size=1024k tmpfs "$mnt" || exit 77
  "$pproc" "$small" -q --backend html -o "$mnt/d" || { echo "FAIL: the small report"; exit 1; }
  sum_before=$(cksum < "$mnt/d/report.html")
  "$pproc" "$large" --backend html --html-exact 0 -o "$mnt/d" 2> "$mnt.err"
  rc=$?
  cat "$mnt.err"
  [ $rc -eq 3 ] || { echo "FAIL: exit $rc, expected 3"; exit 1; }
  grep -q "^scope-profiler-pproc: cannot write .*report.html: .*(the existing file is kept)" "$mnt.err" ||
    { echo "FAIL: message"; exit 1; }
  [ "$(cksum < "$mnt/d/report.html")" = "$sum_before" ] || { echo "FAIL: older report changed"; exit 1; }
  ls -A "$mnt/d" | grep -q tmp && { echo "FAIL: temporary left:"; ls -A "$mnt/d"; exit 1; }
  echo "PASS: exit 3, older report kept, no temporary"
' sh "$pproc" "$small" "$large" "$mnt"
