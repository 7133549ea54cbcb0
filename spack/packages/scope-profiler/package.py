# Spack package of scope-profiler, kept in the project's own repository
# (spack/, a Spack package repository: `spack repo add <checkout>/spack`).
# Checked without Spack by tests/install/check_package_py.py; the commands
# that checked it with a real Spack are in spack/README.md.

import os

from spack.package import *


class ScopeProfiler(CMakePackage):
    """Region profiler for C/Fortran MPI codes: start/stop stamps of named
    regions on every rank, written to one HDF5 file (parallel HDF5 with
    MPI), with a Fortran module, a reader library and a PLplot
    postprocessor (scope-profiler-pproc)."""

    # The project is not published yet, so there is no real homepage or
    # repository URL. example.invalid is a reserved name that can never
    # resolve: set SCOPE_PROFILER_GIT to a clone URL (file:///path/to/checkout
    # works) to build @main from git, or build a checkout in place with
    # `spack dev-build` / `spack develop` (see spack/README.md).
    homepage = "https://example.invalid/scope-profiler"
    git = os.environ.get("SCOPE_PROFILER_GIT", "https://example.invalid/scope-profiler.git")

    version("main", branch="main")

    variant("mpi", default=True, description="Write one file from all MPI ranks (parallel HDF5)")
    variant("fortran", default=True, description="Build the Fortran module scope_profiler")
    variant("likwid", default=False, description="Call LIKWID markers around regions")
    variant(
        "postproc",
        default=True,
        description="Build the reader library and scope-profiler-pproc",
    )
    variant(
        "plplot",
        default=True,
        description="Draw the PNG/PDF/SVG charts of scope-profiler-pproc with PLplot "
        "(without it: the text outputs, data files and report.html only)",
        when="+postproc",
    )
    variant(
        "otf2",
        default=True,
        description="scope-profiler-pproc --export otf2 (OTF2 traces for Vampir, Scalasca, "
        "the Score-P tools); needs +postproc",
    )
    variant(
        "nvtx",
        default=False,
        description="NVTX both ways (docs/gpu.md): the injection library libscope_profiler_nvtx "
        "that records a program's NVTX ranges, and SCOPE_PROFILER_NVTX=1 forwarding; "
        "needs +shared",
    )
    conflicts("+nvtx", when="~shared", msg="NVTX loads its tool as a shared library")
    variant(
        "openmp",
        default=False,
        description="OpenMP constructs as regions through the OpenMP tools interface "
        "(SCOPE_PROFILER_OPENMP, docs/openmp.md); needs LLVM's OpenMP runtime at run time",
    )
    variant("shared", default=True, description="Build shared libraries (else static)")
    variant(
        "bindings",
        default=True,
        description="Install the C++ header and the ctypes Python package "
        "(the Python package only with +shared: it loads libscope_profiler.so)",
    )

    # The Python reading API (scope_profiler_native.h5reader and
    # plotting_scripts, installed with the package when +bindings+postproc):
    # numpy for the arrays, PLplot's Python module for plot_gantt.
    variant(
        "python",
        default=False,
        description="Run dependencies of the Python reading API (numpy; PLplot's Python "
        "module for plot_gantt); needs +bindings+postproc+shared",
    )
    conflicts("+python", when="~bindings", msg="the Python reading API is part of the Python package")
    conflicts("+python", when="~postproc", msg="the Python reading API uses the reader library")
    conflicts("+python", when="~shared", msg="the Python package loads the shared libraries")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi", when="+mpi")
    # The parallel HDF5 for one file across ranks; a serial one without MPI.
    depends_on("hdf5+mpi", when="+mpi")
    depends_on("hdf5~mpi", when="~mpi")
    # The Gantt charts use PLplot's cairo devices (pngcairo, pdfcairo,
    # svgcairo, xcairo). Spack's plplot has no cairo variant: its cairo
    # driver is built when pango (pangocairo) is found, hence +pango.
    depends_on("plplot+pango", when="+postproc+plplot")
    depends_on("likwid", when="+likwid")
    depends_on("python@3.8:", type=("build", "run"), when="+python")
    depends_on("py-numpy", type="run", when="+python")
    depends_on("plplot+python+pango", when="+python")
    depends_on("otf2", when="+postproc+otf2")
    # NVTX3's headers alone (header-only; no CUDA needed to build or run).
    depends_on("nvtx~python", when="+nvtx")
    # omp-tools.h, the OMPT interface; programs run on libomp (docs/openmp.md).
    depends_on("llvm-openmp", when="+openmp")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("SCOPE_PROFILER_ENABLE_MPI", "mpi"),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_FORTRAN", "fortran"),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_LIKWID", "likwid"),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_POSTPROC", "postproc"),
            self.define("SCOPE_PROFILER_ENABLE_PLPLOT", spec.satisfies("+postproc+plplot")),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_BINDINGS", "bindings"),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_OTF2", "otf2"),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_NVTX", "nvtx"),
            self.define_from_variant("SCOPE_PROFILER_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define("BUILD_TESTING", self.run_tests),
            self.define("SCOPE_PROFILER_BUILD_BENCHMARKS", False),
            # Warnings of a compiler the project was not tested with must
            # not break a user's install.
            self.define("SCOPE_PROFILER_WERROR", False),
            # The HDF5 of the spec, not one that happens to be on the system.
            self.define("HDF5_ROOT", spec["hdf5"].prefix),
        ]
        if spec.satisfies("+mpi"):
            args.append(self.define("MPI_C_COMPILER", spec["mpi"].mpicc))
            if spec.satisfies("+fortran"):
                args.append(self.define("MPI_Fortran_COMPILER", spec["mpi"].mpifc))
        if spec.satisfies("+bindings"):
            args.append(self.define("SCOPE_PROFILER_PYTHON_INSTALL_DIR", self.python_dir))
        if spec.satisfies("+nvtx"):
            args.append(self.define("SCOPE_PROFILER_NVTX_INCLUDE_DIR", spec["nvtx"].prefix.include))
        if spec.satisfies("+openmp"):
            # prefix/include for Spack's build; a Debian external keeps it in
            # clang's resource directory (lib/clang/<v>/include).
            ompt = find(spec["llvm-openmp"].prefix, "omp-tools.h")
            if ompt:
                args.append(self.define("SP_OMPT_HEADER", ompt[0]))
        return args

    @property
    def python_dir(self):
        """Where the Python package goes, relative to the prefix."""
        return join_path("lib", "python3", "site-packages")

    def setup_run_environment(self, env):
        if self.spec.satisfies("+bindings+shared") or self.spec.satisfies("+python"):
            env.prepend_path("PYTHONPATH", join_path(self.prefix, self.python_dir))
