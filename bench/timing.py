"""Timing shared by the CPU benches (run them from the repository root)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best(repeat: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    """Smallest wall time of ``repeat`` calls of ``fn(*args, **kwargs)``: on a noisy
    machine the minimum is the least disturbed run."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    return min(times)
