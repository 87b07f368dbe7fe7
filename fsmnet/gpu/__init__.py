"""The scan engine: run automata and networks on very long inputs.

One entry point, :func:`evaluate`, over the backends ``cupy`` (CUDA kernels in
``kernels/*.cu``), ``numba`` (CPU cores), ``numpy`` (the reference loop) and
``dask`` (a cluster).  See docs/architecture.md, "Scan engine" and docs/performance.md.
"""

from fsmnet.gpu.engine import BACKENDS, EvalResult, cuda_available, evaluate

__all__ = ["BACKENDS", "EvalResult", "cuda_available", "evaluate"]
