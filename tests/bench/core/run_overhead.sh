#!/bin/sh
# run_overhead.sh BENCH [RUNS] [LIBDIR...]: runs bench_overhead RUNS times
# (default 5) pinned to CPU 1, and prints the median of each column per case.
# With LIBDIRs, each run takes every library in turn (LD_LIBRARY_PATH, same
# binary), so two builds of the library are compared in interleaved runs.
set -eu
bench=$1
runs=${2:-5}
shift $(( $# >= 2 ? 2 : 1 ))
[ $# -gt 0 ] || set -- ""
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
  n=0
  for lib in "$@"; do
    LD_LIBRARY_PATH=$lib taskset -c 1 "$bench" >"$out/run.$n.$i" 2>/dev/null
    n=$((n + 1))
  done
  i=$((i + 1))
done
n=0
for lib in "$@"; do
  echo "library: ${lib:-as built}, median of $runs runs"
  cat "$out"/run.$n.* | awk '
    /^(floor|disabled|counts|time|nested|16)/ {
      label = substr($0, 1, 40); sub(/ +$/, "", label)
      if (!(label in seen)) { seen[label] = 1; order[++k] = label }
      for (c = 1; c <= 4; c++) v[label, c, ++cnt[label, c]] = $(NF - 4 + c)
    }
    function median(label, c,   m, i, j, t, a) {
      m = cnt[label, c]
      for (i = 1; i <= m; i++) a[i] = v[label, c, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
      printf "%-40s %9s %9s %9s %9s\n", "case", "ns/pair", "floor", "x floor", "- floor"
      for (i = 1; i <= k; i++)
        printf "%-40s %9.2f %9.2f %9.2f %+9.2f\n", order[i], median(order[i], 1),
               median(order[i], 2), median(order[i], 3), median(order[i], 4)
    }'
  n=$((n + 1))
done
