"""Where and when a table's figures were made: written into every table's JSON and
every cell record.

The machine matters for the rows built on matrix products.  torch's CPU wheel runs
them through MKL, whose kernels differ between processors (and between MKL's code
paths: ``MKL_CBWR``), so the same seed and budget round differently on another CPU.
A row whose accuracy is not saturated (an LSTM, a full bilinear RNN at this budget)
then trains to a different network; docs/experiments.md ("Table 2") measures it.
"""

import datetime
import os
import platform
from typing import Any


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance() -> dict[str, Any]:
    """Date (UTC), CPU model and logical cores, the versions that change figures, the
    CPU capability torch dispatches to, and MKL's reproducibility setting."""
    import numpy
    import torch

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "MKL_CBWR": os.environ.get("MKL_CBWR"),
    }
