# bindings/README.md, MPI without mpi4py: two ranks, one file.
PYTHONPATH=$SP_PYTHONPATH
export PYTHONPATH
snippet bindings-python-mpi > script.py
"$MPIEXEC" -n 2 "$SP_PYTHON" script.py
check_profile profiling_data.h5 --ranks 2 --region step --count step=1
