"""Makes the imports that the GPU machine's image lacks fail, for the rehearsal of
bench/gpu_check.sh (tests/test_gpu_check_script.py): z3, automata-lib and Dask are
not there (the device tool's KINDS.md), so the GPU checks must not need them.
libsemigroups_pybind11 is missing too, but travels as a wheel (bench/gpu_wheels.sh)."""

import sys

for _name in ("z3", "automata", "dask", "distributed"):
    sys.modules[_name] = None  # type: ignore[assignment]
