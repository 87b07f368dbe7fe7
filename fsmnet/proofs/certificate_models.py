"""Certificate models: a network's tensors and states in the checker's exact JSON form.

Each architecture record (:mod:`fsmnet.archs`) names one :class:`CertificateForm`
here: ``LINEAR`` for every linear recurrence, ``MINMAX_DENSE`` and
``MINMAX_CASCADE`` for the MinMax networks.

The independent checker (:mod:`fsmnet.proofs.checker`) re-implements each
architecture's step from a *model*: the network's tensors written as exact
rationals.  Every float64 is a rational; :func:`exact_str` writes it as
``"p/q"`` (or an integer), so the checker computes with the very values the
network holds.  Max and min only select values, so no arithmetic is lost.

* linear recurrences -> ``{"type": "linear", "matrices", "h0", "readout"}``, the
  exact per-symbol matrices, h0 and readout.
* ``minmax-dense`` -> ``{"type": "minmax-dense", "R", "s", "x0", "readout"}``.
* ``minmax-cascade`` and ``minmax-scalar`` -> ``{"type": "minmax-cascade",
  "units": [{"level", "size", "kind", "r"|"R", "s", "x0"}], "readout"}``
  where ``kind`` is ``"scalar"`` or ``"matrix"`` and ``readout`` lists the
  label index of every mixed-radix code; a prefix-indexed cascade adds
  ``"links"`` (one int table per unit) and its codes are prefix indices; a
  product cascade (format 3) adds ``"components"`` (one int per unit) and
  ``"joins"`` (int tables), its readout indexed by the joined final prefixes.

States are written the same way: a dense state is a vector of strings, a
cascade state a list of per-unit vectors (a scalar unit as a one-entry list).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fsmnet.errors import FsmnetError
from fsmnet.nets import Network


def exact_str(x: float) -> str:
    """The exact rational value of a float64 as ``"p/q"`` (``"p"`` for integers)."""
    f = Fraction(float(x))  # raises for inf / nan: those are never valid weights
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _strings(array: Any) -> Any:
    arr = np.asarray(array, dtype=np.float64)
    if arr.ndim == 0:
        return exact_str(float(arr))
    if np.all(np.abs(arr) < 2.0**53) and np.all(arr == np.trunc(arr)):
        # Integer-valued (the usual 0/1 and 1..k weights): exact as integers,
        # and much faster than one Fraction per entry.
        return np.vectorize(str, otypes=[object])(arr.astype(np.int64)).tolist()
    return [_strings(x) for x in arr]


class NotRational(FsmnetError):
    """An exact weight is irrational (a rotation 2πk/n of an exact header): the
    certificate formats hold rationals only."""


def exact_q(x: Any) -> str:
    """An exact rational (Fraction, int, float or a rational cyclotomic number) as
    ``"p/q"`` (``"p"`` for integers); :class:`NotRational` for an irrational one."""
    if hasattr(x, "rational"):  # a cyclotomic number: rational or not, decided exactly
        q = x.rational()
        if q is None:
            raise NotRational(f"the exact weight {x} is irrational: no rational model")
        x = q
    f = Fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def exact_qs(array: Any) -> Any:
    """Nested lists of :func:`exact_q` strings for an array of exact rationals."""
    arr = np.asarray(array, dtype=object)
    if arr.ndim == 0:
        return exact_q(arr.item())
    return [exact_qs(x) for x in arr]


def linear_model(net: Network) -> dict[str, Any]:
    """The exact model of a linear recurrence: per-symbol matrices, h0 and readout.

    Raises :class:`FsmnetError` for a network that is not one linear recurrence (a
    ``bilinear-block`` network's state is a tuple of blocks: :func:`block_model`)."""
    from fsmnet.nets.linear import LinearRecurrence

    sem: Any = net.semantics
    if not isinstance(sem, LinearRecurrence):
        raise FsmnetError(f"a {net.arch} network is not one linear recurrence: it has no "
                          "single matrix per symbol")
    return {
        "type": "linear",
        "matrices": exact_qs(sem.matrices(net, True)),
        "h0": exact_qs(sem.initial_state(net, True)),
        "readout": exact_qs(sem.readout_matrix(net, True)),
    }


def float32_linear_model(net: Network) -> dict[str, Any]:
    """The model of a ``float32-product`` certificate: :func:`linear_model`, except that
    an irrational exact weight (an exact header's rotation) is the file's float64 value.
    The float32 reference step rounds that double (fsmnet.nets.float32), and the checker
    rounds the model's rationals through float64 to float32, so both use one value."""
    from fsmnet.nets.float32 import exact_or_double

    if not net.exact:
        return linear_model(net)
    sem: Any = net.semantics
    return {
        "type": "linear",
        "matrices": exact_qs(exact_or_double(sem.matrices(net, True), sem.matrices(net, False))),
        "h0": exact_qs(sem.initial_state(net, True)),
        "readout": exact_qs(exact_or_double(sem.readout_matrix(net, True),
                                            sem.readout_matrix(net, False))),
    }


def minmax_dense_model(net: Network) -> dict[str, Any]:
    """The exact model of a ``minmax-dense`` network."""
    p = net.params
    return {"type": "minmax-dense", "R": _strings(p["R"]), "s": _strings(p["s"]),
            "x0": _strings(p["x0"]), "readout": _strings(p["readout"])}


def minmax_cascade_model(net: Network) -> dict[str, Any]:
    """The exact model of a MinMax cascade (scalar and matrix units)."""
    from fsmnet.nets.minmax_cascade import SCALAR_KIND

    p = net.params
    units = []
    for u, (level, size, kind) in enumerate(zip(p["unit_level"], p["unit_size"],
                                                p["unit_kind"])):
        unit: dict[str, Any] = {"level": int(level), "size": int(size)}
        if int(kind) == SCALAR_KIND:
            unit.update(kind="scalar", r=_strings(p[f"unit{u}_r"]))
        else:
            unit.update(kind="matrix", R=_strings(p[f"unit{u}_R"]))
        unit.update(s=_strings(p[f"unit{u}_s"]), x0=_strings(p[f"unit{u}_x0"]))
        units.append(unit)
    model: dict[str, Any] = {"type": "minmax-cascade", "units": units,
                             "readout": [int(c) for c in p["readout"]]}
    from fsmnet.nets.minmax_cascade import link_names

    links = link_names(p)
    if links:  # prefix-indexed tables (format 2): the checker chains the links
        model["links"] = [np.asarray(p[name], dtype=np.int64).tolist() for name in links]
    if "unit_component" in p:  # a product cascade (format 3): chains per component
        from fsmnet.nets.minmax_cascade import join_names

        model["components"] = [int(c) for c in p["unit_component"]]
        model["joins"] = [np.asarray(p[name], dtype=np.int64).tolist()
                          for name in join_names(p)]
    return model


def block_model(net: Network) -> dict[str, Any]:
    """The exact model of a bilinear-block network: per block its matrices and h0,
    and the multilinear readout tensor."""
    sem: Any = net.semantics
    mats = sem.matrices(net, True)
    h0 = sem.initial_state(net, True)
    return {"type": "bilinear-block",
            "blocks": [{"matrices": exact_qs(m), "h0": exact_qs(h)} for m, h in zip(mats, h0)],
            "readout": _strings(net.params["readout"])}


@dataclass(frozen=True)
class CertificateForm:
    """How an architecture's networks and reached states are written for the checker."""

    model: Callable[[Network], dict[str, Any]]
    state: Callable[[Network, Any], Any]


LINEAR = CertificateForm(linear_model, lambda net, h: exact_qs(h))


def sparse_linear_model(net: Network) -> dict[str, Any]:
    """The exact model of a linear recurrence stored sparse, by its non-zero entries
    (``linear-sparse``, fsmnet.proofs.checker.sparse_linear): per-symbol matrices
    and the readout as (rows, cols, values) in row-major order, h0 as (index,
    values).  The entries are the semantics' exact ones (``matrix_entries``)."""
    entries = _sparse_entries(net)
    if entries is None:
        raise FsmnetError(f"this {net.arch} network has no sparse exact model")
    sem: Any = net.semantics
    hidden = sem.hidden_size(net)
    symbols, rows, cols, values = entries
    matrices = []
    for a in range(len(net.symbols)):
        keep = (symbols == a) & (values != 0)
        order = np.lexsort((cols[keep], rows[keep]))
        matrices.append(_sparse_matrix(rows[keep][order], cols[keep][order],
                                       values[keep][order]))
    (r_rows, r_cols), r_values = _nonzeros(net.stored["readout"])
    h0 = sem.initial_state(net, True)
    index = [j for j, x in enumerate(h0.tolist()) if x != 0]
    return {"type": "linear-sparse", "dim": hidden, "matrices": matrices,
            "h0": {"index": index, "values": [exact_q(h0[j]) for j in index]},
            "readout": _sparse_matrix(r_rows, r_cols, r_values)}


def _sparse_entries(net: Network) -> tuple[np.ndarray, ...] | None:
    """The exact matrices' non-zero entries of a linear recurrence that reads them
    sparse and whose readout is its float64 one; None otherwise."""
    from fsmnet.nets.linear import LinearRecurrence

    sem: Any = net.semantics
    if not isinstance(sem, LinearRecurrence) or \
            type(sem).readout_matrix is not LinearRecurrence.readout_matrix:
        return None
    return sem.matrix_entries(net, True)  # type: ignore[no-any-return]


def _sparse_matrix(rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> dict[str, Any]:
    return {"rows": [int(i) for i in rows], "cols": [int(j) for j in cols],
            "values": [exact_q(v) for v in values.tolist()]}


def sparse_state(indices: list[int], values: list[Any]) -> list[list[str]]:
    """A ``linear-sparse`` state: [indices as decimal strings, exact values]."""
    return [[str(j) for j in indices], [exact_q(v) for v in values]]


def has_sparse_model(net: Network) -> bool:
    """Whether an exact-product certificate of ``net`` takes the ``linear-sparse``
    model: a linear recurrence whose matrices are stored sparse and are its exact
    weights."""
    return _sparse_entries(net) is not None


def _nonzeros(tensor: Any) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The coordinates (row-major order) and values of a stored tensor's non-zeros."""
    if isinstance(tensor, np.ndarray):
        where = np.nonzero(tensor)
        return where, tensor[where]
    keep = tensor.values != 0
    return tuple(axis[keep] for axis in tensor.indices), tensor.values[keep]


def sparse_minmax_model(net: Network) -> dict[str, Any]:
    """The ``minmax-sparse`` model of a non-negative ``minmax-dense`` network
    (fsmnet.proofs.checker.sparse_minmax): R and the readout by their non-zeros,
    s and x0 likewise."""
    if not has_sparse_minmax_model(net):
        raise FsmnetError(f"this {net.arch} network has no sparse max-min model")
    stored = net.stored
    (sym, rows, cols), values = _nonzeros(stored["R"])
    (s_sym, s_index), s_values = _nonzeros(stored["s"])
    (x_index,), x_values = _nonzeros(stored["x0"])
    (r_rows, r_cols), r_values = _nonzeros(stored["readout"])
    return {"type": "minmax-sparse", "dim": int(stored["x0"].shape[0]),
            "R": [_sparse_matrix(rows[sym == a], cols[sym == a], values[sym == a])
                  for a in range(len(net.symbols))],
            "s": [{"index": [int(j) for j in s_index[s_sym == a]],
                   "values": [exact_q(v) for v in s_values[s_sym == a].tolist()]}
                  for a in range(len(net.symbols))],
            "x0": {"index": [int(j) for j in x_index],
                   "values": [exact_q(v) for v in x_values.tolist()]},
            "readout": _sparse_matrix(r_rows, r_cols, r_values)}


def has_sparse_minmax_model(net: Network) -> bool:
    """Whether a ``minmax-dense`` network stores a tensor sparse and every value of R,
    s, x0 and the readout is finite and ≥ 0 (what the ``minmax-sparse`` model needs)."""
    from fsmnet.nets.sparse import SparseTensor

    if net.arch != "minmax-dense" or not any(isinstance(t, SparseTensor)
                                             for t in net.stored.values()):
        return False
    return all(bool(np.all(np.isfinite(values) & (values >= 0)))
               for values in (_nonzeros(net.stored[name])[1]
                              for name in ("R", "s", "x0", "readout")))


SPARSE_LINEAR = CertificateForm(sparse_linear_model, lambda net, h: sparse_state(*h))
"""For exact-product certificates: a state is given as its (indices, values)."""
BLOCK = CertificateForm(block_model, lambda net, state: [exact_qs(h) for h in state])
MINMAX_DENSE = CertificateForm(minmax_dense_model, lambda net, x: _strings(x))
SPARSE_MINMAX = CertificateForm(sparse_minmax_model, lambda net, x: sparse_state(*x))
"""For exact-product certificates of non-negative max-min nets stored sparse."""


def _unit_strings(x: Any) -> list[str]:
    """One cascade unit's state as exact strings (a Python loop: a NumPy call per
    200-unit state was most of a cascade certificate's time)."""
    out = []
    for v in np.atleast_1d(np.asarray(x, dtype=np.float64)).tolist():
        out.append(str(int(v)) if v.is_integer() and abs(v) < 2.0**53 else exact_str(v))
    return out


MINMAX_CASCADE = CertificateForm(minmax_cascade_model,
                                 lambda net, state: [_unit_strings(x) for x in state])


def certificate_form(net: Network) -> CertificateForm:
    """The certificate form the network's architecture record names.

    Raises
    ------
    FsmnetError
        When the architecture has no certificate form yet.
    """
    from fsmnet import archs

    ref = archs.get(net.arch).certificate_model
    if ref is None:
        raise FsmnetError(f"certificates are not available for {net.arch} yet")
    form: CertificateForm = archs.resolve(ref)
    return form
