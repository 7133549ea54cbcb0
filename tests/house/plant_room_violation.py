#!/usr/bin/python3
"""pproc_rooms.py must catch a regression: plants one violation of the
postprocessor's rooms in a copy of postproc/ and expects pproc_rooms.py to
fail with the matching message.

usage: plant_room_violation.py CASE ROOT WORKDIR
CASE: common_calls_front, report_includes_charts, plplot_outside_charts,
      call_cycle, front_too_big
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def append(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def plant(case, pp):
    """Plants CASE into the copy's postproc/; returns the expected message (regex)."""
    if case == "common_calls_front":
        # A shared helper that calls back into the front.
        append(os.path.join(pp, "common", "messages.c"),
               "\nvoid sp_msg_planted(void) { sp_usage_short(); }\n")
        return r"common/messages\.c:\d+: calls sp_usage_short of cli/options\.c: common/ may not use cli/"
    if case == "report_includes_charts":
        append(os.path.join(pp, "report", "html_json.c"), '\n#include "gantt.h"\n')
        return r"report/html_json\.c:\d+: includes charts/gantt\.h: report/ may not use charts/"
    if case == "plplot_outside_charts":
        append(os.path.join(pp, "common", "palette.c"), "\n#include <plplot.h>\n")
        return r"common/palette\.c:\d+: includes <plplot\.h> outside charts/"
    if case == "call_cycle":
        # chart_lanes.c is called by gantt.c; a call back closes a loop.
        append(os.path.join(pp, "charts", "chart_lanes.c"),
               "\nint sp_lanes_planted(void) { return sp_gantt_render_timed(0, 0, 0, 0); }\n")
        return r"call cycle: .*charts/chart_lanes\.c -> charts/gantt\.c \(sp_gantt_render_timed\)"
    if case == "front_too_big":
        for k in range(30):
            with open(os.path.join(pp, "cli", f"planted_{k}.c"), "w", encoding="utf-8") as f:
                f.write("/* planted */\n")
        return r"postproc/cli:1: \d+ files in the front \(at most 25\)"
    sys.exit(f"plant_room_violation.py: unknown case {case}")


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    case, root, work = argv[1:]
    copy = os.path.join(work, "rooms", case)
    shutil.rmtree(copy, ignore_errors=True)
    for room in ("cli", "charts", "report", "common"):
        shutil.copytree(os.path.join(root, "postproc", room), os.path.join(copy, "postproc", room))
    expected = plant(case, os.path.join(copy, "postproc"))
    r = subprocess.run([sys.executable, os.path.join(HERE, "pproc_rooms.py"), copy],
                       capture_output=True, text=True)
    print(r.stdout, end="")
    ok = r.returncode == 1 and re.search(expected, r.stdout)
    if not ok:
        print(f"plant_room_violation.py: {case}: expected exit 1 and /{expected}/, "
              f"got exit {r.returncode}")
        return 1
    print(f"plant_room_violation.py: {case}: caught")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
