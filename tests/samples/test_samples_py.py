"""setup(sample_ms=...) from Python reaches sp_config.sample_ms: 5 ms samples
in python.h5 (check_samples.py --case child); bad values raise."""
import time

import scope_profiler_native as spn

for bad, exc in ((-1, ValueError), (3600001, ValueError), (2.5, TypeError), (True, TypeError)):
    try:
        spn.setup(sample_ms=bad, file_path="python.h5")
    except exc:
        pass
    else:
        raise SystemExit(f"sample_ms={bad!r} did not raise {exc.__name__}")
spn.setup(sample_ms=5, file_path="python.h5")
assert spn.get_config().sample_ms == 5, spn.get_config()
with spn.region("work"):
    time.sleep(0.2)
rc = spn.finalize()
raise SystemExit(rc)
