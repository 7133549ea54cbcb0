# bindings/README.md "The shortest programs", the Python snippet, with the
# installed package: 10 calls of "compute".
PYTHONPATH=$SP_PYTHONPATH
export PYTHONPATH
snippet readme-python > app.py
"$SP_PYTHON" app.py
check_profile profiling_data.h5 --ranks 1 --region compute --count compute=10
