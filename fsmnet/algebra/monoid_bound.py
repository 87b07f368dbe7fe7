"""A lower bound on the size of a transition monoid, found without listing it.

``fsmnet info`` asks before enumerating a monoid whether it can fit under a
limit: :func:`size_lower_bound` measures one D-class through the strong orbits
of its image set and its kernel (their product counts the D-class's R- and
L-classes, a lower bound on the monoid), in at most a budget of counted work,
where enumeration (:mod:`fsmnet.algebra.monoid`) would take hours on a monoid
the bound already finds too large.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SizeBound", "size_lower_bound"]

# Orbit points (image sets or kernels) times their length that size_lower_bound may
# visit in all: a few million cells, a fraction of a second, against the seconds to
# hours of enumerating a monoid that the bound finds too large.
_BOUND_CELLS = 1 << 22

# Steps of the walk that picks the elements whose D-classes size_lower_bound measures.
_WALK_STEPS = 512


@dataclass(frozen=True)
class SizeBound:
    """A lower bound on the size of a transition monoid, from one of its D-classes.

    Attributes
    ----------
    elements
        The monoid has at least this many elements.
    rank
        The rank of the D-class the bound comes from (0 when no D-class beat the
        trivial bound of 1).
    images, kernels
        Image sets in the strong orbit of the D-class representative's image, and
        kernels in the strong orbit of its kernel; ``elements = images * kernels``.
    work
        Orbit points visited times their length: the counted work, at most the budget.
    """

    elements: int
    rank: int
    images: int
    kernels: int
    work: int


def size_lower_bound(generators: np.ndarray | Sequence[Sequence[int]], *,
                     target: int | None = None, budget: int = _BOUND_CELLS) -> SizeBound:
    """A lower bound on the size of the monoid the transformations generate, found
    without listing its elements, in at most ``budget`` cells of work.

    For an element x, let I be the strongly connected component of im(x) in the orbit
    of image sets under the generators (Y -> Y·a), and K that of ker(x) in the orbit
    of kernels (ker -> ker of "a, then x").  For each Y in I there is an element xs R x
    with image Y, and for each kernel in K an element ax L x with that kernel (the
    letters between two sets of one component permute im(x), or the blocks of ker(x),
    and a power of a permutation is the identity).  Distinct images are distinct
    L-classes and distinct kernels distinct R-classes, and in a D-class every R-class
    meets every L-class, so the D-class of x has at least ``|I| * |K|`` elements.  A
    component found in part of an orbit lies inside the whole one, so a budget that
    stops an orbit early still leaves a lower bound.

    The elements x are taken along one seeded random word, the last of each rank:
    for random automata the large D-classes are those of middle ranks, which the word
    passes through.  The search stops once the bound exceeds ``target``.

    Examples
    --------
    >>> t3 = [[1, 2, 0], [1, 0, 2], [0, 0, 2]]  # generate T_3, 27 elements
    >>> size_lower_bound(t3)  # rank 2: 3 image pairs x 3 kernels (x |S_2| = 18 in all)
    SizeBound(elements=9, rank=2, images=3, kernels=3, work=30)
    """
    gens = np.asarray(generators, dtype=np.int64)
    k, n = gens.shape
    best = SizeBound(elements=1, rank=0, images=1, kernels=1, work=0)
    if k == 0 or n == 0:
        return best
    rng = np.random.default_rng(0)  # the bound is a function of the generators alone
    x = np.arange(n)
    last_of_rank: dict[int, np.ndarray] = {}
    for _ in range(min(_WALK_STEPS, 8 * n)):
        x = gens[int(rng.integers(k))][x]  # x, then that letter
        rank = int(np.count_nonzero(np.bincount(x, minlength=n)))
        if rank < n:  # a permutation's D-class is a group: the orbits say nothing of it
            last_of_rank[rank] = x
        if rank == 1:
            break
    work = 0
    for rank in sorted(last_of_rank):
        if target is not None and best.elements > target:
            break
        x = last_of_rank[rank]
        image = np.zeros(n, dtype=bool)
        image[x] = True
        share = (budget - work) // 2
        if share < n:  # not one point more: the budget is spent
            break
        images, spent = _strong_orbit(image, gens, _image_step, rank, share)
        work += spent
        kernels, spent = _strong_orbit(_canonical(x[None, :])[0], gens, _kernel_step, rank,
                                       share, None if target is None else target // images + 1)
        work += spent
        if images * kernels > best.elements:
            best = SizeBound(elements=images * kernels, rank=rank, images=images,
                             kernels=kernels, work=0)
    return dataclasses.replace(best, work=work)


def _image_step(sets: np.ndarray, letter: np.ndarray) -> np.ndarray:
    """Image sets (rows of booleans) under a letter: Y -> Y·a."""
    rows, cols = np.nonzero(sets)
    out = np.zeros_like(sets)
    out[rows, letter[cols]] = True
    return out


def _kernel_step(labels: np.ndarray, letter: np.ndarray) -> np.ndarray:
    """Kernels (rows of canonical block labels) of "the letter, then x": q is labelled
    by the block of the letter's image of q."""
    return _canonical(labels[:, letter])


def _canonical(labels: np.ndarray) -> np.ndarray:
    """Each row relabelled 0, 1, ... in order of first occurrence (one partition, one row)."""
    m, n = labels.shape
    kind = np.int32 if n > np.iinfo(np.int16).max else np.int16
    rows = np.arange(m)
    first = np.full((m, n), n, dtype=kind)
    for j in range(n - 1, -1, -1):  # the first position of each label ends up in `first`
        first[rows, labels[:, j]] = j
    where = np.take_along_axis(first, labels.astype(np.intp), axis=1)
    number = np.cumsum(where == np.arange(n, dtype=kind), axis=1, dtype=kind) - 1
    return np.take_along_axis(number, where.astype(np.intp), axis=1)


def _strong_orbit(start: np.ndarray, gens: np.ndarray, step: Any, rank: int,
                  budget: int, enough: int | None = None) -> tuple[int, int]:
    """The size of the strongly connected component of ``start`` in its orbit under
    ``step`` by each generator, moves that lower the rank left out (they never come
    back), within the points found before ``budget`` cells, or as soon as it reaches
    ``enough``; and the cells visited."""
    n = start.shape[0]
    most = budget // n
    # Points are rows; a row's bytes, as a fixed-width bytes scalar, is its key (all rows
    # have one length, so numpy's trailing-NUL padding cannot make two keys equal).
    width = start.nbytes

    def keys_of(rows: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(rows).view(f"S{width}").ravel()

    known, known_ids = keys_of(start[None, :]), np.array([0])
    frontier, frontier_ids = start[None, :], np.array([0])
    size, check_at = 1, enough or 0
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    while len(frontier):
        moved = np.concatenate([step(frontier, letter) for letter in gens])
        sources = np.tile(frontier_ids, len(gens))
        ranks = (moved.sum(axis=1) if moved.dtype == bool
                 else moved.max(axis=1).astype(np.int64) + 1)
        moved, sources = moved[ranks == rank], sources[ranks == rank]
        batch, first, inverse = np.unique(keys_of(moved), return_index=True,
                                          return_inverse=True)
        at = np.minimum(np.searchsorted(known, batch), len(known) - 1)
        ids = np.where(known[at] == batch, known_ids[at], -1)
        fresh = np.flatnonzero(ids < 0)[:max(0, most - size)]  # the rest: out of budget
        ids[fresh] = np.arange(size, size + len(fresh))
        size += len(fresh)
        targets = ids[inverse]
        src.append(sources[targets >= 0])
        dst.append(targets[targets >= 0])
        at = np.searchsorted(known, batch[fresh])  # both sorted: a merge, no new sort
        known = np.insert(known, at, batch[fresh])
        known_ids = np.insert(known_ids, at, ids[fresh])
        frontier, frontier_ids = moved[first[fresh]], ids[fresh]
        if enough is not None and size >= check_at:  # checks at doubling sizes: linear
            if _component_of_first(src, dst, size) >= enough:
                break
            check_at = 2 * size
    return _component_of_first(src, dst, size), size * n


def _component_of_first(src: list[np.ndarray], dst: list[np.ndarray], size: int) -> int:
    """The size of the strongly connected component of point 0 in a graph of edges."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    edges_from, edges_to = np.concatenate(src), np.concatenate(dst)
    if not len(edges_from):
        return 1
    graph = coo_matrix((np.ones(len(edges_from), dtype=np.int8), (edges_from, edges_to)),
                       shape=(size, size)).tocsr()
    labels = connected_components(graph, directed=True, connection="strong")[1]
    return int(np.count_nonzero(labels == labels[0]))
