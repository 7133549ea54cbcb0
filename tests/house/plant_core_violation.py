#!/usr/bin/python3
"""core_rooms.py must catch a regression: plants one violation of the
core's rooms (or a call cycle in the reader library) in a copy of c/ and
postproc/src/ and expects core_rooms.py to fail with the matching message.

usage: plant_core_violation.py CASE ROOT WORKDIR
CASE: record_calls_spill, base_calls_session, side_room_calls_profile,
      file_cycle, reader_cycle, flat_file, unknown_room
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def append(path, text):
    if not os.path.exists(path):
        sys.exit(f"plant_core_violation.py: {path} is gone: update the plant")
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def plant(case, copy):
    """Plants CASE into the copy; returns the expected message (regex)."""
    src = os.path.join(copy, "c", "src")
    if case == "record_calls_spill":
        # The hot path's buffers writing to the spill file by name, not
        # through sp__up.
        append(os.path.join(src, "record", "region_table.c"),
               "\nint sp__planted(void) { return sp__spill_events(0, 0, 0, 0); }\n")
        return (r"c/src/record/region_table\.c:\d+: calls sp__spill_events of "
                r"spill/spill\.c: record/ may not use spill/")
    if case == "base_calls_session":
        append(os.path.join(src, "base", "log.c"),
               "\nvoid sp__planted(void) { (void)sp_finalize(); }\n")
        return r"c/src/base/log\.c:\d+: calls sp_finalize of session/session\.c: base/ may not use session/"
    if case == "side_room_calls_profile":
        # A side room (left out of some builds) is used by the session only,
        # and uses no room beside it.
        append(os.path.join(src, "likwid", "likwid_glue.c"),
               "\nconst char *sp__planted(void) { return sp__agg_path(); }\n")
        return r"c/src/likwid/likwid_glue\.c:\d+: calls sp__agg_path of profile/\S+: likwid/ may not use profile/"
    if case == "file_cycle":
        # Inside one room: spill.c writes run_meta.c's metadata; a direct
        # call back closes a loop (the real one goes through sp__up).
        append(os.path.join(src, "spill", "run_meta.c"),
               "\nvoid sp__planted(void) { sp__spill_meta_now(); }\n")
        return r"call cycle: .*spill/run_meta\.c -> spill/spill\.c \(sp__spill_meta_now\)"
    if case == "reader_cycle":
        # reader_tree.c calls reader_tree_agg.c; a call back closes a loop.
        append(os.path.join(copy, "postproc", "src", "reader_tree_agg.c"),
               "\nvoid sp__planted(sp_reader_tree_t *t) { sp_reader_tree_free(t); }\n")
        return (r"postproc/src/\S+:1: call cycle: .*reader_tree_agg\.c -> reader_tree\.c "
                r"\(sp_reader_tree_free\)")
    if case == "flat_file":
        write(os.path.join(src, "planted.c"), '#include "sp_internal.h"\n')
        return r"c/src/planted\.c:1: not in a room"
    if case == "unknown_room":
        write(os.path.join(src, "gpu", "gpu_glue.c"), '#include "sp_internal.h"\n')
        return r"c/src/gpu/gpu_glue\.c:1: gpu/ is not a room of core_rooms\.py"
    sys.exit(f"plant_core_violation.py: unknown case {case}")


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    case, root, work = argv[1:]
    copy = os.path.join(work, "core_rooms", case)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(os.path.join(root, "c", "src"), os.path.join(copy, "c", "src"))
    shutil.copy(os.path.join(root, "c", "CMakeLists.txt"), os.path.join(copy, "c"))
    shutil.copytree(os.path.join(root, "postproc", "src"), os.path.join(copy, "postproc", "src"))
    before = subprocess.run([sys.executable, os.path.join(HERE, "core_rooms.py"), copy],
                            capture_output=True, text=True)
    if before.returncode != 0:
        print(before.stdout, end="")
        print(f"plant_core_violation.py: {case}: the copy fails before the plant")
        return 1
    expected = plant(case, copy)
    r = subprocess.run([sys.executable, os.path.join(HERE, "core_rooms.py"), copy],
                       capture_output=True, text=True)
    print(r.stdout, end="")
    ok = r.returncode == 1 and re.search(expected, r.stdout)
    if not ok:
        print(f"plant_core_violation.py: {case}: expected exit 1 and /{expected}/, "
              f"got exit {r.returncode}")
        return 1
    print(f"plant_core_violation.py: {case}: caught")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
