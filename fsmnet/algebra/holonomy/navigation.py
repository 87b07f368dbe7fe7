"""Navigation words inside an equivalence class: ``FromRep(P)`` and ``ToRep(P)``.

``FromRep(P)`` maps the representative ``R`` of ``P``'s class onto ``P`` along
a spanning tree inside the class; ``ToRep(P)`` maps ``P`` back onto ``R`` and
is chosen so that ``FromRep(P)·ToRep(P)`` is the identity on ``R``
(docs/holonomy.md, "What it computes").  Then ``ToRep(P)·FromRep(P)`` is the identity on ``P``
too, so restricted to ``R`` and ``P`` the two words are inverse bijections.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from fsmnet.algebra.holonomy.skeleton import Skeleton, Transformation, members

__all__ = ["Navigation", "build_navigation", "compose", "word_transformation"]


def compose(s: Sequence[int], t: Sequence[int]) -> Transformation:
    """The product ``st`` (``s`` first, then ``t``): ``x·(st) = t[s[x]]``."""
    return tuple(map(t.__getitem__, s))  # a C-level loop: the hot spot of navigation


def word_transformation(word: Sequence[int], generators: Sequence[Transformation],
                        n: int) -> Transformation:
    """The transformation of a word of generator indices (the empty word is the identity)."""
    out: Transformation = tuple(range(n))
    for g in word:
        out = compose(out, generators[g])
    return out


@dataclass(frozen=True, eq=False)
class Navigation:
    """``FromRep``/``ToRep`` words and transformations of every orbit set.

    Attributes
    ----------
    from_words, to_words
        Words of generator indices, per orbit set number (the skeleton's numbering).
    from_maps, to_maps
        The transformations of those words (full maps of ``X``).
    """

    from_words: tuple[tuple[int, ...], ...]
    to_words: tuple[tuple[int, ...], ...]
    from_maps: tuple[Transformation, ...]
    to_maps: tuple[Transformation, ...]


def _permutation_order(t: Transformation, points: Sequence[int]) -> int:
    """Order of the permutation that ``t`` induces on ``points`` (which it must permute)."""
    order = 1
    seen: set[int] = set()
    for p in points:
        if p in seen:
            continue
        length = 0
        x = p
        while True:
            seen.add(x)
            x = t[x]
            length += 1
            if x == p:
                break
        order = order * length // _gcd(order, length)
    return order


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def build_navigation(sk: Skeleton) -> Navigation:
    """Compute ``FromRep`` and ``ToRep`` for every set in the orbit of ``X``."""
    n = sk.n_states
    gens = sk.generators
    identity: Transformation = tuple(range(n))
    m = sk.n_orbit
    from_words: list[tuple[int, ...] | None] = [None] * m
    from_maps: list[Transformation | None] = [None] * m
    back_words: list[tuple[int, ...] | None] = [None] * m
    back_maps: list[Transformation | None] = [None] * m
    # Reverse edges of the orbit graph, for the shortest way back to the representative.
    preds: list[list[tuple[int, int]]] = [[] for _ in range(m)]
    for i in range(m):
        for g, j in enumerate(sk.successors[i]):
            preds[j].append((i, g))
    for cls, rep in enumerate(sk.representatives):
        if rep >= m:
            continue  # a singleton that is not an image: no navigation needed
        # Forward tree from R inside the class.
        from_words[rep], from_maps[rep] = (), identity
        queue = deque([rep])
        while queue:
            i = queue.popleft()
            for g, j in enumerate(sk.successors[i]):
                if sk.class_of[j] == cls and from_words[j] is None:
                    from_words[j] = from_words[i] + (g,)  # type: ignore[operator]
                    from_maps[j] = compose(from_maps[i], gens[g])  # type: ignore[arg-type]
                    queue.append(j)
        # Backward tree towards R inside the class: P·g = P', then P' back to R.
        back_words[rep], back_maps[rep] = (), identity
        queue = deque([rep])
        while queue:
            j = queue.popleft()
            for i, g in preds[j]:
                if sk.class_of[i] == cls and back_words[i] is None:
                    back_words[i] = (g,) + back_words[j]  # type: ignore[operator]
                    back_maps[i] = compose(gens[g], back_maps[j])  # type: ignore[arg-type]
                    queue.append(i)
    to_words: list[tuple[int, ...]] = []
    to_maps: list[Transformation] = []
    for i in range(m):
        u_word, u = from_words[i], from_maps[i]
        v_word, v = back_words[i], back_maps[i]
        assert u_word is not None and u is not None and v_word is not None and v is not None
        rep_points = members(sk.sets[sk.representative(i)])
        # uv permutes R; with k its order, ToRep = v (uv)^(k-1) makes FromRep·ToRep = (uv)^k = 1.
        uv = compose(u, v)
        k = _permutation_order(uv, rep_points)
        word = v_word
        t = v
        for _ in range(k - 1):
            word = word + u_word + v_word
            t = compose(t, uv)
        to_words.append(word)
        to_maps.append(t)
    # Every orbit set is reached: its class lies inside the orbit, with its representative.
    assert all(w is not None for w in from_words)
    return Navigation(
        from_words=tuple(w for w in from_words if w is not None),
        to_words=tuple(to_words),
        from_maps=tuple(t for t in from_maps if t is not None),
        to_maps=tuple(to_maps),
    )
