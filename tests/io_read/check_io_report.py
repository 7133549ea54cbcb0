"""The report's I/O section in headless Chromium against h5py and numpy.

usage: check_io_report.py REPORT.html FILE.h5 OUTDIR [CHROMIUM]
       check_io_report.py many REPORT.html FILE.h5 OUTDIR [CHROMIUM]

The section is present; its Files table has a row per file of the records
(h5py) with the ranks, opens, reads and writes summed over the ranks and the
slowest rank; the Ranks table a row per rank with records and its file
count; the Regions table the regions that made I/O calls (checkpoint, step,
main and the I/O regions). A screenshot of the section goes to
OUTDIR/io_section.png. Prints "PASS report".

many (a file of 100 ranks, make_many_ranks.py): the section stays bounded:
io.dist has the nearest-rank quantiles (numpy) of the ranks' bytes and time,
io.ranks the 16 slowest ranks (h5py), the Ranks table 16 rows and the
distribution table present."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postproc"))
import check_report as cr  # noqa: E402
import check_io_read as ck  # noqa: E402


def busy_of(rec, i):
    return int(rec["read_ns"][i] + rec["write_ns"][i] + rec["meta_ns"][i])


def case(b, h5, out):
    recs = ck.records(h5)
    want = {}
    for r, rec in recs.items():
        for i, name in enumerate(rec["names"]):
            w = want.setdefault(name, [0, 0, 0, 0, -1, -1, 0])
            w[6] += busy_of(rec, i)
            w[0] += 1
            for j, c in enumerate(["opens", "reads", "writes"]):
                w[1 + j] += int(rec[c][i])
            busy = int(rec["read_ns"][i] + rec["write_ns"][i] + rec["meta_ns"][i])
            if busy > w[5]:
                w[4], w[5] = r, busy
    if not b.eval("!!document.getElementById('sp-io-section')"):
        cr.fail("no I/O section")
    if b.eval("!!document.getElementById('sp-io-more')"):  # 20 rows until clicked
        if b.eval("document.querySelectorAll('#sp-io-files tr').length") != 21:
            cr.fail("more than 20 file rows before 'show all'")
        b.eval("document.getElementById('sp-io-more').click()")
    rows = b.eval("[...document.querySelectorAll('#sp-io-files tr')].slice(1).map(tr =>"
                  " [...tr.cells].map(c => c.textContent))")
    got = {r[0]: [int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[11])] for r in rows}
    # the 100 files with the most I/O time (ties by name), as html_io.c keeps them
    kept = sorted(want, key=lambda n: (-want[n][6], n))[:100]
    exp = {n: want[n][:5] for n in kept}
    print("files: %d rows of %d files" % (len(got), len(want)))
    if got != exp:
        cr.fail("files table %s, expected %s" % (got, exp))
    ranks = b.eval("[...document.querySelectorAll('#sp-io-ranks tr')].slice(1).map(tr =>"
                   " [+tr.cells[0].textContent, +tr.cells[1].textContent])")
    if len(recs) <= 64 and sorted(ranks) != sorted([r, len(rec["names"])] for r, rec in recs.items()):
        cr.fail("ranks table %s" % ranks)
    regions = b.eval("[...document.querySelectorAll('#sp-io-regions tr')].slice(1).map(tr =>"
                     " tr.cells[0].textContent)")
    need = ("main", "io:write") if len(recs) > 64 else ("checkpoint", "step", "main", "io:write",
                                                        "MPI_File_write_at")
    for n in need:
        if n not in regions:
            cr.fail("region %s not in the I/O regions table %s" % (n, regions))
    if any(not ck.is_io(n) and n not in ("checkpoint", "step", "main") for n in regions):
        cr.fail("regions without I/O listed: %s" % regions)
    errs = b.errors() + [b.eval("document.getElementById('sp-errors').textContent")]
    if any(errs):
        cr.fail("page errors: %s" % errs)
    box = b.eval("(() => { const s = document.getElementById('sp-io-section');"
                 " s.scrollIntoView(); const r = s.getBoundingClientRect();"
                 " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width,"
                 " height: r.height}; })()")
    if b.eval("!!document.getElementById('sp-io-more')"):
        b.eval("document.getElementById('sp-io-more').click()")  # back to 20 rows
        box = b.eval("(() => { const r = document.getElementById('sp-io-section')"
                     ".getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY,"
                     " width: r.width, height: r.height}; })()")
    shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                             "clip": dict(box, scale=1)})
    with open(os.path.join(out, "io_section.png"), "wb") as f:
        f.write(cr.base64.b64decode(shot["data"]))


def case_many(b, h5, out):
    recs = ck.records(h5)
    rid = sorted(recs)
    by = np.array([int(recs[r]["bytes_read"].sum() + recs[r]["bytes_written"].sum()) for r in rid])
    ns = np.array([int((recs[r]["read_ns"] + recs[r]["write_ns"] + recs[r]["meta_ns"]).sum())
                   for r in rid])
    io = b.eval("spReport.data.io")
    n = len(rid)
    q = [int(np.sort(by)[(n - 1) * k // 4]) for k in range(5)]
    qt = [int(np.sort(ns)[(n - 1) * k // 4]) for k in range(5)]
    if io["dist"] != {"n": n, "bytes": q, "ns": qt}:
        cr.fail("dist %s, expected n %d bytes %s ns %s" % (io["dist"], n, q, qt))
    order = sorted(range(n), key=lambda i: (-ns[i], rid[i]))[:16]
    if [x["r"] for x in io["ranks"]] != [rid[i] for i in order]:
        cr.fail("ranks %s, expected the slowest %s" % ([x["r"] for x in io["ranks"]],
                                                       [rid[i] for i in order]))
    rows = b.eval("document.querySelectorAll('#sp-io-ranks tr').length - 1")
    if rows != 16 or not b.eval("!!document.getElementById('sp-io-dist')"):
        cr.fail("%d rank rows (want 16) or no distribution table" % rows)
    print("dist", io["dist"], "slowest", [x["r"] for x in io["ranks"]])
    case(b, h5, out)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "many":
        report, h5, out = sys.argv[2:5]
        exe = sys.argv[5] if len(sys.argv) > 5 else cr.shutil.which("chromium")
        os.makedirs(out, exist_ok=True)
        cr.run_case({"report": case_many}, "report", report, h5, out, exe, 100)
        return
    if len(sys.argv) < 4:
        print(__doc__)
        sys.exit(2)
    report, h5, out = sys.argv[1:4]
    exe = sys.argv[4] if len(sys.argv) > 4 else cr.shutil.which("chromium")
    if not exe:
        cr.fail("chromium not found")
    os.makedirs(out, exist_ok=True)
    cr.run_case({"report": case}, "report", report, h5, out, exe, 100)


if __name__ == "__main__":
    main()
