"""bilinear-cp search is deterministic, and reports the exact flattening lower bound.

Independent sources: the flattening ranks are recomputed with sympy (exact rank
over Q); determinism is checked by compiling twice, in this process and in a
fresh one, and comparing the stored bytes.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest
import sympy

import fsmnet
from fsmnet.errors import SpecError


def digest(net: fsmnet.Network) -> str:
    return hashlib.sha256(b"".join(np.ascontiguousarray(net.params[k]).tobytes()
                                   for k in ("U", "V", "Z", "h0", "readout"))).hexdigest()


def unfoldings(spec: str) -> list[int]:
    """Ranks of the three unfoldings of the one-hot tensor W[i, j, σ] = [δ(j, σ) = i]."""
    m = fsmnet.load(spec).minimal()
    n, k = m.n_states, m.n_symbols
    w = np.zeros((n, n, k), dtype=int)
    for s in range(k):
        for j in range(n):
            w[m.delta[s, j], j, s] = 1
    return [sympy.Matrix(w.reshape(n, n * k).tolist()).rank(),
            sympy.Matrix(np.moveaxis(w, 1, 0).reshape(n, n * k).tolist()).rank(),
            sympy.Matrix(np.moveaxis(w, 2, 0).reshape(k, n * n).tolist()).rank()]


def test_compiling_twice_gives_identical_rank_and_bytes():
    first = fsmnet.compile("modadd:3", "bilinear-cp")
    # Unrelated Z3 work in the global context must not change the next search.
    import z3
    s = z3.Solver()
    s.add(z3.Int("x") * z3.Int("x") == 49)
    assert s.check() == z3.sat
    second = fsmnet.compile("modadd:3", "bilinear-cp")
    assert first.options["rank"] == second.options["rank"] < 9
    assert first.options["search"] == second.options["search"]
    assert digest(first) == digest(second)


def test_fresh_process_gives_the_same_bytes():
    here = fsmnet.compile("modadd:3", "bilinear-cp")
    code = ("import fsmnet,hashlib,numpy as np;n=fsmnet.compile('modadd:3','bilinear-cp');"
            "print(n.options['rank'],hashlib.sha256(b''.join(np.ascontiguousarray(n.params[k])"
            ".tobytes() for k in ('U','V','Z','h0','readout'))).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == [str(here.options["rank"]), digest(here)]


@pytest.mark.parametrize("spec", ["modadd:2", "modadd:3", "parity", "atleast:3", "flipflop"])
def test_lower_bound_is_the_exact_flattening_rank(spec):
    net = fsmnet.compile(spec, "bilinear-cp")
    ranks = unfoldings(spec)
    assert net.options["flattening_ranks"] == ranks
    assert net.options["lower_bound"] == max(ranks) <= net.options["rank"]


def test_modadd2_rank2_ruled_out_deterministically():
    # Rank 2 of Z_2's tensor needs the entry 1/2 (Q[Z_2] ≅ Q × Q), so {-1,0,1} UNSAT.
    net = fsmnet.compile("modadd:2", "bilinear-cp")
    assert net.options["rank"] == 3
    assert "UNSAT" in net.options["search"]


def test_cli_json_reports_lower_bound_beside_rank(tmp_path):
    out = tmp_path / "m.safetensors"
    proc = subprocess.run([sys.executable, "-m", "fsmnet", "compile", "modadd:2", "--arch",
                           "bilinear-cp", "-o", str(out), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    options = json.loads(proc.stdout)["options"]
    assert options["rank"] == 3 and options["lower_bound"] == 2
    assert options["flattening_ranks"] == [2, 2, 2]


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "many"])
def test_bad_rlimit_is_a_spec_error(bad):
    with pytest.raises(SpecError, match="search_rlimit"):
        fsmnet.compile("parity", "bilinear-cp", search_rlimit=bad)


def test_bad_time_guard_is_a_spec_error():
    with pytest.raises(SpecError, match="search_seconds"):
        fsmnet.compile("parity", "bilinear-cp", search_seconds=-1)
