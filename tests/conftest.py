"""Shared test helpers.

Fixtures here are available to every test module without an import:

* ``shortest_disagreement(net, automaton, max_len)``: brute force over every
  word up to ``max_len``, shortest first, with the exact reference evaluator;
  the independent source the soundness tests compare verdicts with.
* ``count_calls(owner, name)``: counts the calls of ``owner.name`` (a function
  or a property) for the rest of the test; the speed tests assert counted work
  (no exploration, one search) rather than seconds, which depend on the machine.

Helper modules beside the tests (imported by name, since ``tests/`` is on
``sys.path``): ``bilinear_helpers``, ``brute_force`` (the snapping tests' oracles),
``cascade_strategies``, ``emulated_cupy``
(the CUDA emulator as ``cupy``), ``holonomy_oracles`` (published SgpDec
results), ``layer_rule`` (the import checker) and ``toy_architecture`` (a
made-up architecture for the registry tests).

Hypothesis settings come from two profiles registered here, not from each test:

* ``default``: no deadline, and the same examples on every run (``derandomize``,
  no example database), so that a CI failure comes from the change under test
  and repeats on a developer's machine;
* ``thorough``: ten times the examples, drawn afresh on each run (a failure
  prints the ``@reproduce_failure`` blob that replays it).

``default`` is loaded for every run, ``thorough`` when the run selects slow tests
(``-m slow``) or asks for it (``--hypothesis-profile=thorough``, which also works
under ``-n 2``: each worker loads the profile named on the command line).  A test
whose examples cost enough to need a bound of its own sets
``max_examples=examples(n)`` (``hypothesis_budget``): ``n`` under ``default``,
scaled with the loaded profile.  Tests marked ``thorough`` are the soundness
properties whose only extra budget is more examples; ``-m slow`` runs them too.
Other heavy properties keep a ``slow`` twin that also raises a size or length.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis_budget import DEFAULT_EXAMPLES, THOROUGH_FACTOR

# Under ``pytest -n 2`` two workers share two cores, and each worker's torch and
# BLAS would start one thread per core: four busy threads on two cores, which
# thrash, so each worker gets one BLAS thread (docs/performance.md, "Default test
# suite").  Numba's pool is left alone: limiting it too measured no better.  Set
# before any test module imports torch, and
# inherited by the CLI subprocesses the tests start.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

# A run started in the background of a non-interactive shell (``pytest &``) begins
# with SIGINT ignored, and an ignored signal stays ignored in every child: the CLI
# processes of the Ctrl-C tests would ignore their Ctrl-C and time out.  A handler
# here (not an ignore) resets to the default in each child at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("default", deadline=None, derandomize=True, database=None,
                          max_examples=DEFAULT_EXAMPLES)
settings.register_profile("thorough", settings.get_profile("default"), derandomize=False,
                          print_blob=True, max_examples=THOROUGH_FACTOR * DEFAULT_EXAMPLES)


def _selects_slow(markexpr: str) -> bool:
    """Whether ``-m markexpr`` selects tests marked ``slow`` ("slow", "slow or gpu"),
    as opposed to the default "not slow"."""
    return re.search(r"(?<!not )\bslow\b", " ".join(markexpr.split())) is not None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # tryfirst: Hypothesis's own pytest_configure runs after this one and loads the
    # profile named by --hypothesis-profile, if any, over the one chosen here.
    config.addinivalue_line(
        "markers", "thorough: a soundness property with more examples under the thorough "
        "profile; -m slow runs it too")
    thorough = _selects_slow(config.getoption("markexpr", "") or "")
    settings.load_profile("thorough" if thorough else "default")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # tryfirst: before pytest deselects by -m, so that "-m slow" keeps these.
    if _selects_slow(config.getoption("markexpr", "") or ""):
        for item in items:
            if item.get_closest_marker("thorough") is not None:
                item.add_marker(pytest.mark.slow)


def shortest_disagreement(net: Any, automaton: Any, max_len: int) -> list[int] | None:
    """The shortest word (symbol indices) on which the network's exact output and the
    automaton's differ, or None when they agree on every word up to ``max_len``."""
    for length in range(max_len + 1):
        for w in itertools.product(range(automaton.n_symbols), repeat=length):
            got = net.labels[int(net.label_trace(list(w), exact=True)[-1])]
            want = automaton.output(automaton.run(w))
            if type(got) is not type(want) or got != want:
                return list(w)
    return None


class CallCounter:
    """How many times the wrapped callable ran (``calls``)."""

    def __init__(self) -> None:
        self.calls = 0

    def wrap(self, func: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return func(*args, **kwargs)
        return counted


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any, str], CallCounter]:
    def install(owner: Any, name: str) -> CallCounter:
        counter = CallCounter()
        current = getattr(owner, "__dict__", {}).get(name, getattr(owner, name))
        if isinstance(current, property):
            monkeypatch.setattr(owner, name, property(counter.wrap(current.fget)))
        else:
            monkeypatch.setattr(owner, name, counter.wrap(current))
        return counter
    return install


@pytest.fixture(scope="session", name="shortest_disagreement")
def _shortest_disagreement_fixture() -> Callable[..., list[int] | None]:
    return shortest_disagreement


# The working directory of the command-line tests (tests/cli_scratch.py): a regular file
# ``afile``, a directory ``adir`` and a compiled ``net.safetensors``.
@pytest.fixture()
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "afile").write_text("not a directory\n")
    (tmp_path / "adir").mkdir()
    import fsmnet

    fsmnet.compile("parity", "bilinear-full").save(tmp_path / "net.safetensors")
    monkeypatch.chdir(tmp_path)
    return tmp_path
