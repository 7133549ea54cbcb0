"""Python: metadata_set of str, int, float, bool and refusals; profile()
records the decorated function's place; for check_runmeta.py (case py).

meta_py.py OUT.h5 EXPECTED.json
"""
import json
import sys

import scope_profiler_native as sp

out, exp_path = sys.argv[1], sys.argv[2]
fails = []
if sp.metadata_set("early", "x") != -4:
    fails.append("before setup: SP_ENOTSETUP")
sp.setup(file_path=out)
for key, value in [("py_str", "Ω≈ç √"), ("py_int", -(2**63)), ("py_float", 1.5e-300),
                   ("py_bool", True), ("work_per_rank", 123)]:
    if sp.metadata_set(key, value) != 0:
        fails.append(key)
if sp.metadata_set("py/bad", 1) != -1:
    fails.append("slash refused")
if sp.metadata_set("too_big", 2**63) != -1:
    fails.append("int64 overflow refused")
if sp.metadata_set("timestamp", "x") != -1:
    fails.append("library key refused")
try:
    sp.metadata_set("list", [1])
    fails.append("TypeError for a list")
except TypeError:
    pass

DECORATOR_LINE = sys._getframe().f_lineno + 1
@sp.profile
def kernel():
    return 1


for _ in range(3):
    kernel()
with sp.profile_region("py_plain"):
    pass
with open(exp_path, "w", encoding="utf-8") as f:
    json.dump({"values": {"py_str": "Ω≈ç √", "py_int": -(2**63), "py_float": 1.5e-300,
                          "py_bool": 1, "work_per_rank": 123},
               "absent": ["py/bad", "too_big", "early", "list"],
               "sources": [["kernel", __file__, DECORATOR_LINE]],
               "no_source": ["py_plain"]}, f, ensure_ascii=False)
if sp.finalize() != 0:
    fails.append("finalize")
print("\n".join(fails))
sys.exit(1 if fails else 0)
