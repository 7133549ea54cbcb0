# bindings/README.md, the Python example, with the installed package.
PYTHONPATH=$SP_PYTHONPATH
export PYTHONPATH
snippet bindings-python > example.py
"$SP_PYTHON" example.py
check_profile profiling_data.h5 --ranks 1 --region main --region iteration \
  --count main=1 --count iteration=10 --nested iteration:main
