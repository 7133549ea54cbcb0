#!/bin/sh
# otf2_symlinks.sh PPROC FILE.h5 WORK - --export otf2 -o DIR never reaches
# through a symbolic link when it replaces an earlier archive in DIR:
#  1. DIR/traces a link to a directory outside DIR holding 0.evt, 0.def and
#     another file (issue 43 item 4: 0.evt was deleted, then exit 3);
#  2. DIR/traces a real directory whose 0.evt is a link to a file outside;
#  3. DIR/traces.otf2 and DIR/traces.def links to files outside.
# Each time the export must succeed with a real archive in DIR (otf2-print
# reads it when installed), the links gone as links, and every file outside
# byte for byte as it was. Then a failed export (an empty window, exit 1)
# leaves the archive before it as it was.
pproc=$1 file=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/outside/dir" || exit 1
d=$work/d o=$work/outside
printf 'precious evt\n' > "$o/dir/0.evt"
printf 'precious def\n' > "$o/dir/0.def"
printf 'precious other\n' > "$o/dir/notes.txt"
printf 'precious file\n' > "$o/file"
printf 'precious anchor\n' > "$o/anchor"
printf 'precious defs\n' > "$o/defs"
snapshot() { (cd "$o" && find . -type f | sort | xargs sha256sum); }
before=$(snapshot)
export_ok() { # what
  "$pproc" "$file" --export otf2 -o "$d" 2> "$work/err"
  rc=$?
  [ $rc -eq 0 ] || { cat "$work/err"; fail "$1: exit $rc"; }
  [ "$(snapshot)" = "$before" ] || { snapshot; fail "$1: a file outside DIR changed or vanished"; }
  [ -f "$d/traces.otf2" ] && [ ! -L "$d/traces.otf2" ] || fail "$1: no anchor file"
  [ -d "$d/traces" ] && [ ! -L "$d/traces" ] || fail "$1: traces is not a directory of its own"
  [ -f "$d/traces/0.evt" ] && [ ! -L "$d/traces/0.evt" ] || fail "$1: no traces/0.evt"
  [ -z "$(ls -A "$d" | grep -v '^traces')" ] || { ls -A "$d"; fail "$1: left behind in DIR"; }
  if command -v otf2-print > /dev/null; then
    otf2-print "$d/traces.otf2" > "$work/print" 2>&1 || { tail "$work/print"; fail "$1: otf2-print"; }
    grep -q ENTER "$work/print" || fail "$1: otf2-print shows no ENTER"
  fi
  echo "ok: $1"
}
export_ok first
rm -rf "$d/traces" && ln -s "$o/dir" "$d/traces"
export_ok "traces a link to a directory outside"
rm -f "$d/traces/0.evt" && ln -s "$o/file" "$d/traces/0.evt"
export_ok "traces/0.evt a link to a file outside"
rm -f "$d/traces.otf2" "$d/traces.def" && ln -s "$o/anchor" "$d/traces.otf2" &&
  ln -s "$o/defs" "$d/traces.def"
export_ok "traces.otf2 and traces.def links to files outside"
# A failed export keeps the archive before it.
sum=$(cd "$d" && find . -type f | sort | xargs sha256sum)
"$pproc" "$file" --export otf2 -o "$d" --start-time 1e6 2> "$work/err"
rc=$?
[ $rc -eq 1 ] || { cat "$work/err"; fail "empty window: exit $rc, want 1"; }
[ "$(cd "$d" && find . -type f | sort | xargs sha256sum)" = "$sum" ] ||
  fail "the failed export changed the archive before it"
[ -z "$(ls -A "$d" | grep -v '^traces')" ] || { ls -A "$d"; fail "failed export left files"; }
echo "PASS: no link followed, every file outside kept"
