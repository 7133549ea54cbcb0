# bindings/README.md, ProfileManager as in the reference package.
PYTHONPATH=$SP_PYTHONPATH
export PYTHONPATH
snippet bindings-python-profile-manager > example.py
"$SP_PYTHON" example.py
check_profile profiling_data.h5 --ranks 1 --region main --region iteration \
  --count main=1 --count iteration=1 --nested iteration:main
