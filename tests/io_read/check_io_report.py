"""The report's I/O section in headless Chromium against h5py and numpy.

usage: check_io_report.py REPORT.html FILE.h5 OUTDIR [CHROMIUM]

The section is present; its Files table has a row per file of the records
(h5py) with the ranks, opens, reads and writes summed over the ranks and the
slowest rank; the Ranks table a row per rank with records and its file
count; the Regions table the regions that made I/O calls (checkpoint, step,
main and the I/O regions). A screenshot of the section goes to
OUTDIR/io_section.png. Prints "PASS report"."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postproc"))
import check_report as cr  # noqa: E402
import check_io_read as ck  # noqa: E402


def case(b, h5, out):
    recs = ck.records(h5)
    want = {}
    for r, rec in recs.items():
        for i, name in enumerate(rec["names"]):
            w = want.setdefault(name, [0, 0, 0, 0, -1, -1])
            w[0] += 1
            for j, c in enumerate(["opens", "reads", "writes"]):
                w[1 + j] += int(rec[c][i])
            busy = int(rec["read_ns"][i] + rec["write_ns"][i] + rec["meta_ns"][i])
            if busy > w[5]:
                w[4], w[5] = r, busy
    if not b.eval("!!document.getElementById('sp-io-section')"):
        cr.fail("no I/O section")
    rows = b.eval("[...document.querySelectorAll('#sp-io-files tr')].slice(1).map(tr =>"
                  " [...tr.cells].map(c => c.textContent))")
    got = {r[0]: [int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[11])] for r in rows}
    exp = {n: [w[0], w[1], w[2], w[3], w[4]] for n, w in want.items()}
    print("files:", got)
    if got != exp:
        cr.fail("files table %s, expected %s" % (got, exp))
    ranks = b.eval("[...document.querySelectorAll('#sp-io-ranks tr')].slice(1).map(tr =>"
                   " [+tr.cells[0].textContent, +tr.cells[1].textContent])")
    if sorted(ranks) != sorted([r, len(rec["names"])] for r, rec in recs.items()):
        cr.fail("ranks table %s" % ranks)
    regions = b.eval("[...document.querySelectorAll('#sp-io-regions tr')].slice(1).map(tr =>"
                     " tr.cells[0].textContent)")
    for n in ("checkpoint", "step", "main", "io:write", "MPI_File_write_at"):
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
    with open(os.path.join(out, "io_section.png"), "wb") as f:
        f.write(b.screenshot(box))


def main():
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
