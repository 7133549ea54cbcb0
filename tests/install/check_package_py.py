"""Static check of the Spack package, without Spack (runs in CI).

Parses spack/packages/scope-profiler/package.py with ast and checks that
  - it is valid Python with one CMakePackage subclass;
  - the variants mpi, fortran, likwid, postproc, otf2, shared exist with the
    defaults the issue asks for, each mapped by self.define_from_variant
    in cmake_args to one CMake option that exists: an option() of the
    top-level CMakeLists.txt (SCOPE_PROFILER_ENABLE_*, BUILD_SHARED_LIBS);
  - every other SCOPE_PROFILER_* setting it defines exists in the project;
  - every SCOPE_PROFILER_ENABLE_* option of CMakeLists.txt is either a
    variant or set explicitly in cmake_args (no option left to chance);
  - BUILD_TESTING comes from self.run_tests;
  - the variant plplot (on by default, only with +postproc) sets
    SCOPE_PROFILER_ENABLE_PLPLOT;
  - the dependencies hdf5+mpi / hdf5~mpi / mpi / plplot (+postproc+plplot) /
    likwid / otf2 / cmake are declared under the right conditions.

Usage: check_package_py.py PACKAGE_PY TOP_LEVEL_CMAKELISTS
"""
import ast
import os
import re
import sys

EXPECTED_VARIANTS = {
    # variant: (default, CMake option)
    "mpi": (True, "SCOPE_PROFILER_ENABLE_MPI"),
    "fortran": (True, "SCOPE_PROFILER_ENABLE_FORTRAN"),
    "likwid": (False, "SCOPE_PROFILER_ENABLE_LIKWID"),
    "postproc": (True, "SCOPE_PROFILER_ENABLE_POSTPROC"),
    "otf2": (True, "SCOPE_PROFILER_ENABLE_OTF2"),
    "shared": (True, "BUILD_SHARED_LIBS"),
    "nvtx": (False, "SCOPE_PROFILER_ENABLE_NVTX"),
    "openmp": (False, "SCOPE_PROFILER_ENABLE_OPENMP"),
}

# (spec prefix, when) pairs that must be among the depends_on calls.
EXPECTED_DEPENDS = [
    ("hdf5+mpi", "+mpi"),
    ("hdf5~mpi", "~mpi"),
    ("mpi", "+mpi"),
    ("plplot", "+postproc+plplot"),
    ("likwid", "+likwid"),
    ("py-numpy", "+python"),
    ("plplot+python", "+python"),
    ("otf2", "+postproc+otf2"),
    ("nvtx", "+nvtx"),
    ("llvm-openmp", "+openmp"),
    ("cmake@3.25:", None),
    ("pkgconfig", None),
]


def strip_comments(path):
    return re.sub(r"#[^\n]*", "", open(path, encoding="utf-8").read())


def cmake_options(path):
    """Names of option() calls in a CMakeLists.txt, and of its switches kept
    as a STRING cache entry (AUTO/ON/OFF, e.g. SCOPE_PROFILER_ENABLE_NVTX)."""
    text = strip_comments(path)
    names = set(re.findall(r"\boption\s*\(\s*([A-Za-z0-9_]+)", text))
    names |= set(re.findall(r"\bset\s*\(\s*(SCOPE_PROFILER_ENABLE_[A-Za-z0-9_]+)\s[^)]*\bCACHE\s+STRING\b", text))
    return names


def cmake_cache_entries(root):
    """Names of options and set(NAME ... CACHE ...) entries in every CMake
    file of the project (the parts define their own, e.g. install dirs)."""
    names = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        for f in filenames:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                text = strip_comments(os.path.join(dirpath, f))
                names |= set(re.findall(r"\boption\s*\(\s*([A-Za-z0-9_]+)", text))
                names |= set(re.findall(r"\bset\s*\(\s*([A-Za-z0-9_]+)\s[^)]*\bCACHE\b", text))
    return names


def const(node):
    return node.value if isinstance(node, ast.Constant) else None


def kwarg(call, name):
    for kw in call.keywords:
        if kw.arg == name:
            return const(kw.value)
    return None


def call_name(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def find_package_class(tree):
    classes = [
        n for n in tree.body if isinstance(n, ast.ClassDef)
        and any(isinstance(b, ast.Name) and b.id == "CMakePackage" for b in n.bases)
    ]
    return classes[0] if len(classes) == 1 else None


def check(package_py, cmakelists):
    errors = []
    source = open(package_py, encoding="utf-8").read()
    try:
        tree = ast.parse(source, filename=package_py)
    except SyntaxError as e:
        return [f"does not parse: {e}"]
    cls = find_package_class(tree)
    if cls is None:
        return ["expected exactly one class deriving from CMakePackage"]

    # Class-level directive calls: variant(...), depends_on(...), version(...).
    directives = [n.value for n in cls.body
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    variants = {}
    depends = []
    versions = []
    for c in directives:
        name = call_name(c)
        first = const(c.args[0]) if c.args else None
        if name == "variant":
            default = kwarg(c, "default")
            variants[first] = default
        elif name == "depends_on":
            depends.append((first, kwarg(c, "when")))
        elif name == "version":
            versions.append((first, {kw.arg for kw in c.keywords}))

    for v, (default, _) in EXPECTED_VARIANTS.items():
        if v not in variants:
            errors.append(f"variant {v!r} missing")
        elif variants[v] is not default:
            errors.append(f"variant {v!r}: default {variants[v]!r}, expected {default!r}")

    for spec, when in EXPECTED_DEPENDS:
        if not any((d or "").startswith(spec) for d, w in depends if w == when):
            errors.append(f"depends_on({spec!r}, when={when!r}) missing; have {depends}")

    # plplot: a variant of +postproc only (conditional), so cmake_args sets
    # SCOPE_PROFILER_ENABLE_PLPLOT with define() from the spec.
    if variants.get("plplot") is not True:
        errors.append("variant 'plplot' missing or not on by default (PLplot apart from +postproc)")

    if not any(v == "main" and "branch" in kws for v, kws in versions):
        errors.append('version("main", branch="main") missing')
    if not re.search(r"^\s*git\s*=", source, re.M):
        errors.append("no git = URL for the branch version")

    # cmake_args: define_from_variant(OPTION, variant) and define(OPTION, ...).
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    if "cmake_args" not in methods:
        return errors + ["no cmake_args method"]
    from_variant = {}
    defined = {}
    for node in ast.walk(methods["cmake_args"]):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(node)
        if name == "define_from_variant" and len(node.args) >= 2:
            from_variant[const(node.args[0])] = const(node.args[1])
        elif name == "define" and len(node.args) >= 2:
            defined[const(node.args[0])] = node.args[1]

    options = cmake_options(cmakelists)
    for v, (_, option) in EXPECTED_VARIANTS.items():
        mapped = [o for o, var in from_variant.items() if var == v]
        if mapped != [option]:
            errors.append(f"variant {v!r} maps to {mapped}, expected [{option!r}]")
    for option, var in from_variant.items():
        if option not in options:
            errors.append(f"define_from_variant({option!r}, {var!r}): no option() {option} in "
                          f"{cmakelists}")
        if var not in variants:
            errors.append(f"define_from_variant({option!r}, {var!r}): no variant {var!r}")
    # Our own settings must exist; other names (HDF5_ROOT, MPI_C_COMPILER)
    # belong to CMake's find modules.
    entries = cmake_cache_entries(os.path.dirname(os.path.abspath(cmakelists)))
    for option in defined:
        if option.startswith("SCOPE_PROFILER_") and option not in entries:
            errors.append(f"define({option!r}, ...): no such option or cache entry in the project")
    for option in sorted(o for o in options if o.startswith("SCOPE_PROFILER_ENABLE_")):
        if option not in from_variant and option not in defined:
            errors.append(f"CMake option {option} is neither a variant nor set in cmake_args")

    if "SCOPE_PROFILER_ENABLE_PLPLOT" not in defined:
        errors.append("SCOPE_PROFILER_ENABLE_PLPLOT is not set in cmake_args (variant plplot)")

    testing = defined.get("BUILD_TESTING")
    if not (isinstance(testing, ast.Attribute) and testing.attr == "run_tests"):
        errors.append("BUILD_TESTING must be defined from self.run_tests")
    return errors


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    errors = check(sys.argv[1], sys.argv[2])
    for e in errors:
        print(f"check_package_py: {sys.argv[1]}: {e}", file=sys.stderr)
    if not errors:
        print(f"check_package_py: {sys.argv[1]}: variants, options and dependencies agree")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
