"""The Dask backend on a real cluster: a LocalCluster of 2 worker *processes*.

The blocks are pickled to other processes and run there, so this is the same path
as a multi-machine cluster (docs/performance.md, "Dask").  The reference is the
single-process Numba engine; labels must be equal element for element, and the
blocks' tasks must have run on both workers.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import fsmnet
from fsmnet.gpu import evaluate

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as c:
        yield c


def digest(labels: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(labels, dtype=np.int8).tobytes()).hexdigest()


def single_process(a, word, outputs):
    return evaluate(a, word, backend="numba", outputs=outputs)


@pytest.mark.parametrize("spec", ["modadd:5", "contains:abc"])
def test_million_symbols_on_two_processes(cluster, spec):
    a = fsmnet.load(spec)
    word = np.random.default_rng(11).integers(0, a.n_symbols, 10**6).astype(np.uint8)
    block = 1 << 17
    blocks = -(-len(word) // block)
    want = single_process(a, word, "all")
    with distributed.Client(cluster) as client, distributed.get_task_stream(client) as stream:
        res = evaluate(a, word, backend="dask", chunk=block)
        last = evaluate(a, word, backend="dask", chunk=block, outputs="last")
    assert res.backend == "dask" and res.path == "cayley-blocks"
    assert res.state == want.state == last.state
    assert res.outputs.dtype == want.outputs.dtype == np.int8
    assert np.array_equal(res.outputs, want.outputs)
    names = [t["key"] if isinstance(t["key"], str) else t["key"][0] for t in stream.data]
    assert sum(n.startswith("_summary_automaton") for n in names) == 2 * blocks  # two calls
    assert sum(n.startswith("_replay_automaton") for n in names) == blocks
    assert len({t["worker"] for t in stream.data}) == 2


def test_scheduler_address_from_the_dask_config(cluster):
    """No client in this process: the backend connects to DASK_SCHEDULER_ADDRESS (the
    ``scheduler-address`` setting), as ``fsmnet run --backend dask`` needs."""
    import dask

    from fsmnet.gpu import dask_backend

    a = fsmnet.load("parity")
    word = np.random.default_rng(2).integers(0, 2, 50_000).astype(np.uint8)
    want = single_process(a, word, "all")
    with pytest.raises(ValueError):
        distributed.default_client()
    try:
        with dask.config.set({"scheduler-address": cluster.scheduler_address}):
            res = evaluate(a, word, backend="dask", chunk=8192)
            client = dask_backend.distributed_client()
            assert client is not None and client.scheduler.address == cluster.scheduler_address
    finally:
        for opened in dask_backend._CONNECTED:
            opened.close()
        dask_backend._CONNECTED.clear()
    assert np.array_equal(res.outputs, want.outputs) and res.state == want.state


@pytest.mark.slow
def test_hundred_million_symbols_on_two_processes(cluster):
    a = fsmnet.load("modadd:5")
    word = np.random.default_rng(5).integers(0, a.n_symbols, 10**8).astype(np.uint8)
    want = single_process(a, word, "all")
    with distributed.Client(cluster):
        res = evaluate(a, word, backend="dask")
        last = evaluate(a, word, backend="dask", outputs="last")
    assert res.state == want.state == last.state
    assert digest(res.outputs) == digest(want.outputs)
