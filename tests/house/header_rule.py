#!/usr/bin/python3
"""The header rule of the core's internal modules (docs/design.md, "Headers").

usage: header_rule.py ROOT

Checks c/src/ and c/include/ of the source tree ROOT and prints one line
per violation (file:line first); exit 1 when there is any, else 0:

1. Every function a c/src/ROOM/X.c defines without `static` is either public
   (sp_*, declared in a header of c/include/), interposed (MPI_*, PMPI_*,
   mpi_* and the like: another library's names, listed in INTERPOSERS), or
   internal: named sp__* and declared in X's header, which is c/src/ROOM/X.h
   or the section of sp_internal.h whose banner ("/* ---- X.c ...") names
   X.c, or an interface header listed in INTERFACES that X.c implements
   (sp__ names the public headers declare for their macros and the
   bindings count as public). A c/src/ROOM/X.c with an X.h includes it.
2. Every sp__ function declared in an internal header is defined in some
   c/src/ROOM/*.c and used by a file other than the one defining it (otherwise
   it is static in its file).
3. A header includes <hdf5.h> or <mpi.h> only when its own declarations
   use HDF5 (hid_t, herr_t, hsize_t, H5...) or MPI (MPI_...) names.
4. No header outside c/include/ is installed: c/include/ holds only the
   public headers (scope_profiler*.h, and .h.in templates of them).
5. Every sp__ function is declared once: one prototype in one internal
   header (design.md's "declared once").
"""
import collections
import glob
import os
import re
import sys

# Internal headers declaring one interface that several files implement
# (one of them per build): header -> the .c files that may implement it.
INTERFACES = {
    "par.h": {"mpi_par.c", "mpi_stub.c"},
    "openmp.h": {"ompt_tool.c", "openmp_stub.c"},
    "sp_internal.h": set(),  # sections, see own_sections()
}
# Other libraries' entry points the core interposes (MPI's C and Fortran
# names, the profiling interface; libc's I/O calls for profile_io,
# c/src/io/) or provides (the OpenMP tools interface's ompt_start_tool):
# defined without sp_ on purpose.
INTERPOSERS = re.compile(r"^(MPI_|PMPI_|mpi_|pmpi_)\w*$|^ompt_start_tool$|"
                         r"^(open|openat|creat|close|read|write|pread|pwrite|readv|writev|"
                         r"preadv|pwritev|lseek|fsync|fdatasync|ftruncate|mmap|fopen|fclose|"
                         r"fread|fwrite|fflush|vfprintf|fprintf|fputs|fseek|fseeko)(64)?$")
PUBLIC_HEADERS = re.compile(r"^scope_profiler\w*\.h(\.in)?$")

FUNC_DEF = re.compile(r"^(?!static\b)(?!typedef\b)(?:[A-Za-z_][\w \t\*]*?[\s\*])"
                      r"([A-Za-z_]\w*)\s*\(([^;{}]*?)\)\s*(?:__attribute__\(\(.*?\)\)\s*)?\{",
                      re.M | re.S)
FUNC_DECL = re.compile(r"\b(sp_{1,2}\w+)\s*\(", re.M)
HDF5_USE = re.compile(r"\b(hid_t|herr_t|hsize_t|hssize_t|haddr_t|H5\w+)\b")
MPI_USE = re.compile(r"\bMPI_\w+\b")
PROTOTYPE = re.compile(r"\bSP_HIDDEN\b[^;{}()]*?\b(sp__\w+)\s*\([^;{}]*\)\s*;", re.S)


def strip_comments(text):
    """text without /* */ and // comments and string literals, lines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r"/\*.*?\*/", blank, text, flags=re.S)
    text = re.sub(r"//[^\n]*", blank, text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def own_sections(internal):
    """{X.c: set of sp__ names declared in sp_internal.h's sections for X.c}."""
    sections = {}
    current = []
    for line in internal.split("\n"):
        m = re.match(r"^/\* ---- (.*?)(?: ----|:|\*/|$)", line)
        if m:
            current = re.findall(r"(\w+)\.c", m.group(1))
            current = [c + ".c" for c in current]
            continue
        code = strip_comments(line)
        for name in FUNC_DECL.findall(code):
            if name.startswith("sp__"):
                for c in current:
                    sections.setdefault(c, set()).add(name)
    return sections


def declared(header_text):
    code = strip_comments(header_text)
    return {n for n in FUNC_DECL.findall(code)}


def definitions(text):
    """(name, line) of the functions text defines without static."""
    code = strip_comments(text)
    out = []
    for m in FUNC_DEF.finditer(code):
        head = code[m.start():m.end()]
        if re.search(r"\b(if|for|while|switch|return|else|do|sizeof)\b\s*\($", head.split("(")[0]):
            continue
        first = head.split("\n")[0]
        if first.startswith((" ", "\t", "#")):
            continue
        if re.search(r"\bstatic\b|\binline\b", head.split(m.group(1))[0]):
            continue
        out.append((m.group(1), line_of(code, m.start(1))))
    return out


def check(root):
    src = os.path.join(root, "c", "src")
    inc = os.path.join(root, "c", "include")
    problems = []
    # The rooms (docs/design.md, "Rooms"): c/src/ROOM/X.c; names stay unique
    # across rooms, so a file is known by its base name.
    path_of = {os.path.basename(p): os.path.relpath(p, root)
             for p in glob.glob(os.path.join(src, "**", "*.[ch]"), recursive=True)}
    internal = read(os.path.join(root, path_of["sp_internal.h"]))
    sections = own_sections(internal)
    headers = {os.path.basename(h): read(h)
               for h in sorted(glob.glob(os.path.join(src, "**", "*.h"), recursive=True))}
    header_decls = {h: declared(t) for h, t in headers.items()}
    public = set()
    for h in glob.glob(os.path.join(inc, "*")):
        if not PUBLIC_HEADERS.match(os.path.basename(h)):
            problems.append(f"{os.path.relpath(h, root)}: not a public header: internal "
                            "headers live in c/src/")
        public |= declared(read(h))
    sources = {os.path.basename(c): read(c)
               for c in sorted(glob.glob(os.path.join(src, "**", "*.c"), recursive=True))}
    defined_in = {}
    for cfile, text in sources.items():
        stem = cfile[:-2]
        rel = path_of[cfile]
        own = set(sections.get(cfile, set()))
        own |= header_decls.get(stem + ".h", set())
        for h, impls in INTERFACES.items():
            if cfile in impls:
                own |= header_decls[h]
        if stem + ".h" in headers and not re.search(
                r'^\s*#\s*include\s*"' + re.escape(stem) + r'\.h"', text, re.M):
            problems.append(f"{rel}:1: does not include its own header {stem}.h")
        for name, line in definitions(text):
            defined_in.setdefault(name, set()).add(cfile)
            if INTERPOSERS.match(name):
                continue
            if name.startswith("sp__"):
                if name not in own and name not in public:
                    where = [h for h, d in header_decls.items() if name in d]
                    problems.append(
                        f"{rel}:{line}: {name} is declared in "
                        f"{', '.join(where) or 'no header'}, not in {stem}.h or a section "
                        f"'/* ---- {cfile} ---- */' of sp_internal.h")
            elif name.startswith("sp_"):
                if name not in public:
                    problems.append(f"{rel}:{line}: {name}: an sp_ name not declared in "
                                    "c/include/: make it static or name it sp__ and declare "
                                    "it in its header")
            else:
                problems.append(f"{rel}:{line}: {name}: not static, not sp_/sp__, not an "
                                "interposed MPI name: make it static")
    # Each file's identifiers once (a name is used in a file when it is one of
    # them): searching every file's text again per name made this test 20 s.
    words_of = {c: set(re.findall(r"\w+", strip_comments(t))) for c, t in sources.items()}
    for h, decls in header_decls.items():
        header_words = collections.Counter(re.findall(r"\w+", strip_comments(headers[h])))
        for name in sorted(d for d in decls if d.startswith("sp__")):
            homes = defined_in.get(name)
            if not homes:
                continue  # a static inline in the header, or a macro-made name
            users = [c for c in sources if c not in homes and name in words_of[c]]
            inline_use = header_words[name] > 1
            if not users and not inline_use:  # an inline function of the header calls it
                line = line_of(headers[h], headers[h].find(name))
                problems.append(f"{path_of[h]}:{line}: {name} is used only in "
                                f"{', '.join(sorted(homes))}: make it static there")
    prototypes = {}
    for h, text in headers.items():
        code = strip_comments(text)
        for m in PROTOTYPE.finditer(code):
            prototypes.setdefault(m.group(1), []).append(f"{path_of[h]}:{line_of(code, m.start(1))}")
    for name, places in sorted(prototypes.items()):
        if len(places) > 1:
            problems.append(f"{places[1]}: {name} is declared again (first at {places[0]}): "
                            "declare it once, in its file's header")
    for path in sorted(glob.glob(os.path.join(src, "**", "*.h"), recursive=True) +
                      glob.glob(os.path.join(inc, "*.h*"))):
        text = read(path)
        code = strip_comments(text)
        body = re.sub(r"^\s*#\s*include[^\n]*", "", code, flags=re.M)
        for lib, use in (("hdf5.h", HDF5_USE), ("mpi.h", MPI_USE)):
            m = re.search(r"^\s*#\s*include\s*<" + re.escape(lib) + ">", code, re.M)
            if m and not use.search(body):
                problems.append(f"{os.path.relpath(path, root)}:{line_of(code, m.start())}: "
                                f"includes <{lib}> but declares nothing that needs it")
    for p in problems:
        print(p)
    print(f"header_rule.py: {len(sources)} sources, {len(headers)} internal headers, "
          f"{len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
