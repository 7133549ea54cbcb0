# bindings/README.md, a native kernel loaded with ctypes records into the
# driver's session: one file with "driver" and the kernel's 100 calls.
PYTHONPATH=$SP_PYTHONPATH
export PYTHONPATH
"$CC" -std=c11 -shared -fPIC "$SP_SRC/tests/docs/mykernel.c" -o libmykernel.so \
  -I"$SP_PREFIX/include" -L"$SP_LIBDIR" -lscope_profiler -Wl,-rpath,"$SP_LIBDIR"
snippet bindings-python-kernel > example.py
"$SP_PYTHON" example.py
check_profile profiling_data.h5 --ranks 1 --region driver --region kernel \
  --count driver=1 --count kernel=100 --nested kernel:driver
