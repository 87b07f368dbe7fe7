"""Built-in PFSA-SR families: probabilistic cup swaps with one-position reveals.

``pcups:n=3,p=1/2`` (arXiv 2602.14814, the probabilistic shell game): n
distinct objects ``a, b, c, ...`` lie under n cups at positions 0..n-1; a
state is the arrangement, written as a string (``"bac"``: position 0 holds
``b``), initially ``"abc..."``.  Symbols:

* ``swapij`` (i < j): swap positions i and j (deterministic, reveals nothing);
* ``pswapij``: a hidden branch: swap i and j with probability p, else nothing;
* ``showi=v``: reveal that position i holds object v (ρ = the arrangements
  with v at i); the arrangement does not move.

The state space is the n! arrangements (the *joint* representation).

>>> m = build_pfsa_family("pcups:3")
>>> m.belief(["pswap01", "show0=a"])[0], m.probability(["pswap01", "show0=a"])
(Fraction(1, 1), Fraction(1, 2))

The adversarial sequences of the paper's negative results are words over
this family: :func:`joint_decay_period` (mass 1/2, 1/4, 1/8, ... per period)
and :func:`marginal_adversarial_period` (for the n×n marginal representation).
"""

from __future__ import annotations

import itertools
import string
from fractions import Fraction

from fsmnet.automata.pfsa import PFSA
from fsmnet.errors import SpecError

__all__ = ["PFSA_FAMILIES", "build_pfsa_family", "cups", "is_pfsa_family",
           "joint_decay_period", "marginal_adversarial_period"]

PFSA_FAMILIES = {"pcups": "pcups:n=3,p=1/2  n objects under n cups (2 <= n <= 5); swapij, "
                          "pswapij (swap with probability p), showi=v reveals position i"}
_MAX_N = 5


def cups(n: int = 3, p: Fraction | str = Fraction(1, 2), *, name: str = "") -> PFSA:
    """The probabilistic shell game over n objects (see the module docstring)."""
    source = name or "<family pcups>"
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= _MAX_N:
        raise SpecError(f"n must be an integer in 2..{_MAX_N} (n! states)", source=source,
                        field="n", value=n)
    try:
        prob = Fraction(p)
    except (ValueError, ZeroDivisionError, TypeError):
        raise SpecError("p must be an exact rational like 1/2", source=source, field="p",
                        value=p) from None
    if not 0 <= prob <= 1:
        raise SpecError("p must lie in [0, 1]", source=source, field="p", value=str(prob))
    objects = string.ascii_lowercase[:n]
    states = ["".join(x) for x in itertools.permutations(objects)]
    index = {s: i for i, s in enumerate(states)}
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    symbols: list[str] = []
    kernel: list[list[list[Fraction]]] = []
    reveals: list[list[int]] = []

    def swapped(s: str, i: int, j: int) -> str:
        chars = list(s)
        chars[i], chars[j] = chars[j], chars[i]
        return "".join(chars)

    for i, j in pairs:
        for kind, chance in (("swap", Fraction(1)), ("pswap", prob)):
            table = []
            for s in states:
                row = [Fraction(0)] * len(states)
                row[index[swapped(s, i, j)]] += chance
                row[index[s]] += 1 - chance
                table.append(row)
            symbols.append(f"{kind}{i}{j}")
            kernel.append(table)
            reveals.append(list(range(len(states))))
    identity = [[Fraction(int(q == t)) for t in range(len(states))] for q in range(len(states))]
    for i in range(n):
        for v in objects:
            symbols.append(f"show{i}={v}")
            kernel.append(identity)
            reveals.append([q for q, s in enumerate(states) if s[i] == v])
    return PFSA(states=states, symbols=symbols, kernel=kernel, reveals=reveals,
                initial=0, name=name or f"pcups:n={n},p={prob}", source=source,
                description=f"{n} objects under {n} cups; pswap swaps with probability "
                            f"{prob}; show reveals one position")


def joint_decay_period() -> tuple[str, ...]:
    """One period of the joint-representation decay: a hidden swap, then a reveal.

    From ``abc...``, ``pswap01`` splits the mass between ``abc`` and ``bac``;
    ``show0=a`` keeps half of it: P((pswap01 show0=a)^k) = (1 - p)^k, the
    1/2, 1/4, 1/8, ... of the paper for p = 1/2.
    """
    return ("pswap01", "show0=a")


def marginal_adversarial_period() -> tuple[str, ...]:
    """One period of the adversarial sequence for the n×n marginal representation.

    Two hidden swaps move mass into position 0 and back; the reveal of
    position 0 only ever replenishes row 0 and column ``a``, so the entries of
    rows 1, 2 and columns b, c are never injected (n >= 3).
    """
    return ("pswap01", "pswap12", "show0=a")


def is_pfsa_family(spec: str) -> bool:
    """True when ``spec`` names a built-in PFSA family (``pcups``, ``pcups:...``)."""
    return isinstance(spec, str) and spec.partition(":")[0].strip() in PFSA_FAMILIES


def build_pfsa_family(spec: str) -> PFSA:
    """``pcups``, ``pcups:4``, ``pcups:n=3,p=1/3`` -> a PFSA (typed errors otherwise)."""
    head, _, rest = spec.partition(":")
    if head.strip() not in PFSA_FAMILIES:
        raise SpecError(f"unknown PFSA family; known: {', '.join(PFSA_FAMILIES)}",
                        source="<family>", value=spec)
    args: dict[str, str] = {}
    names = ["n", "p"]
    for k, item in enumerate(x for x in rest.split(",") if x.strip()):
        key, eq, value = item.partition("=")
        if not eq:
            if k >= len(names):
                raise SpecError("too many arguments (pcups:n,p)", source=spec, value=item)
            key, value = names[k], item
        if key.strip() not in names or key.strip() in args:
            raise SpecError("unknown or repeated parameter (pcups takes n and p)",
                            source=spec, field=key.strip(), value=item)
        args[key.strip()] = value.strip()
    n_text = args.get("n", "3")
    if not n_text.isdigit():
        raise SpecError("n must be an integer", source=spec, field="n", value=n_text)
    return cups(int(n_text), args.get("p", "1/2"), name=spec)
