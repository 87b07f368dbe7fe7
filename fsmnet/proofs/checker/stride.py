"""Invariants with a stride: sets closed under every word of length k, not every symbol.

A trained network often contracts towards its attractor only over several steps:
each single symbol may stretch some direction (the matrices are far from normal),
while every product of k symbols shrinks it.  Boxes then close for the k-th power
of the automaton (its symbols are the words of length k) and for no single step.
The induction still covers every length: a word is k-blocks and a remainder r
with |r| < k; after the blocks the state lies in a set of the certificate, and
every proper prefix of a block, applied to a set, is read out correctly
(:func:`prefixes` lists them with the state each one reaches).

This module builds the power model; the domain checks it as any other
(``stride`` in a chart-box certificate).  For the ``float32-step`` model it also
bounds how far a float32 run of a word strays (:func:`word_error32`): each step
of h ↦ fl(A h)/max lies within err_a = :func:`step_error32` of s·A h (s > 0,
‖h‖∞ = 1).  Unnormalized, u_j = A_j u_{j−1} + ε_j with |ε_j| ≤ err_j ‖u_{j−1}‖∞, so
the run of w from u_0 (‖u_0‖∞ ≤ N) ends within N·E_w of A_w u_0 up to a positive
scale, with E_0 = 0, E_j = |A_j| E_{j−1} + err_j V_{j−1} and
V_j = (max row sum of |A_j| + max err_j) V_{j−1}, V_0 = 1 (V_j bounds ‖u_j‖∞ / N).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from .boxes import _matmul
from .core import Automaton, CertificateError
from .linear_model import LinearModel, step_error32

MAX_WORDS = 4096  # symbols^stride: what one certificate may ask the checker to multiply


@dataclass(frozen=True)
class Prefix:
    """A word w with 0 < |w| < stride: its letters, its matrix A_w and the state map
    q ↦ δ(q, w)."""

    word: tuple[int, ...]
    matrix: tuple[tuple[Fraction, ...], ...]
    reach: tuple[int, ...]


def read_stride(cert: dict[str, Any], n_symbols: int) -> int:
    """The certificate's stride (1 when absent), bounded so the power stays small."""
    k = cert.get("stride", 1)
    if type(k) is not int or k < 1:
        raise CertificateError(f"stride must be a positive integer (got {k!r})")
    if n_symbols ** k > MAX_WORDS:
        raise CertificateError(f"stride {k}: {n_symbols}^{k} words exceed {MAX_WORDS}")
    return k


def words(n_symbols: int, k: int) -> list[tuple[int, ...]]:
    """The words of length k in the power automaton's symbol order: the first letter
    (the one applied first) most significant."""
    return list(product(range(n_symbols), repeat=k))


def _apply(a: tuple[tuple[Fraction, ...], ...], m: tuple[tuple[Fraction, ...], ...]
           ) -> tuple[tuple[Fraction, ...], ...]:
    """a·m in Fractions."""
    return tuple(tuple(row) for row in _matmul(a, m))


def _word_matrix(model: LinearModel, word: tuple[int, ...], cache: dict[tuple[int, ...], Any]
                 ) -> tuple[tuple[Fraction, ...], ...]:
    """A_w = A_{w_last} ··· A_{w_first}, built on the matrix of w without its last letter."""
    if word not in cache:
        cache[word] = (model.matrices[word[0]] if len(word) == 1 else
                       _apply(model.matrices[word[-1]], _word_matrix(model, word[:-1], cache)))
    out: tuple[tuple[Fraction, ...], ...] = cache[word]
    return out


def _reach(automaton: Automaton, word: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for q in range(automaton.n_states):
        for a in word:
            q = automaton.delta[a][q]
        out.append(q)
    return tuple(out)


def power(automaton: Automaton, model: LinearModel, k: int
          ) -> tuple[Automaton, LinearModel, tuple[Prefix, ...]]:
    """The k-th power automaton and model (one symbol per word of length k) and the
    proper nonempty prefixes; k = 1 gives the inputs and no prefixes."""
    if k == 1:
        return automaton, model, ()
    cache: dict[tuple[int, ...], Any] = {}
    top = words(automaton.n_symbols, k)
    delta = tuple(_reach(automaton, w) for w in top)
    index = {",".join(map(str, w)): i for i, w in enumerate(top)}
    powered = Automaton(delta, automaton.outputs, automaton.initial, index)
    mats = tuple(_word_matrix(model, w, cache) for w in top)
    prefixes = tuple(Prefix(w, _word_matrix(model, w, cache), _reach(automaton, w))
                     for n in range(1, k) for w in words(automaton.n_symbols, n))
    return powered, LinearModel(mats, model.h0, model.readout), prefixes


def word_error32(model: LinearModel, word: tuple[int, ...],
                 cache: dict[tuple[int, ...], tuple[list[Fraction], Fraction]]
                 ) -> tuple[list[Fraction], Fraction]:
    """(E_w, V_w) of the module docstring for the float32 ``model``, built on w's
    prefix without its last letter (cached)."""
    if not word:
        return [Fraction(0)] * model.dim, Fraction(1)
    if word not in cache:
        e, v = word_error32(model, word[:-1], cache)
        a = model.matrices[word[-1]]
        err = step_error32(a, model.dim)
        grown = [sum((abs(x) * y for x, y in zip(row, e) if x and y), Fraction(0)) + r * v
                 for row, r in zip(a, err)]
        norm = max(sum((abs(x) for x in row), Fraction(0)) for row in a)
        cache[word] = (grown, v * (norm + max(err)))
    return cache[word]
