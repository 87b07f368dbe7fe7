"""The orbit of ``X`` under the letters: breadth-first, in image order, with a size limit.

Step 1a of the skeleton (:mod:`fsmnet.algebra.holonomy.skeleton`).  Sets are
Python-int bitmasks (bit ``x`` set when ``x`` is in the set).  The order is
the breadth-first one: set ``i`` is expanded letter by letter, and each image
not seen before gets the next number.  Two ways to compute the images give
exactly that order:

* one set at a time (below 33 points, or while the queue holds only a few
  sets): a loop over the set's members, or one look-up per 8 points in
  per-letter byte tables;
* a block of consecutive queue entries at once (NumPy): the block as a bit
  matrix with one row per *point* (bit r of byte j: is the point in set
  8j + r), so that the image under ``t`` is row by row,
  ``image[y] = OR of block[x] over the preimages x of y``: a few
  fancy-indexed ORs of whole rows (one per rank of preimage, at most the
  largest fibre of ``t``), 8 sets per byte.  Two bit-matrix transposes (8x8
  blocks in a uint64, three masked swaps) go from sets to points and back.
  The images are then numbered in the order (set, letter), which is the
  order the one-at-a-time loop visits them, so the numbering, the parents
  and the successor table are the same.

The blocks pay on large orbits, such as the random 942-state automaton's,
far beyond the limit (docs/performance.md, "Expressivity against the number
of states"); what is left there is the Python dictionary of the sets found.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fsmnet.errors import FsmnetError

Transformation = tuple[int, ...]

__all__ = ["DecompositionTooLarge", "image_mask", "orbit"]

BLOCK = 4096
"""Queue entries imaged together by NumPy (4096 sets of 1,000 points: 0.5 MB per letter)."""

_SMALL_BLOCK = 8
"""Below this many queued sets the one-at-a-time images are cheaper than NumPy's set-up."""


class DecompositionTooLarge(FsmnetError):
    """The orbit of image sets is beyond the skeleton's limit (``ORBIT_LIMIT``)."""


def image_mask(mask: int, t: Sequence[int]) -> int:
    """The image ``P·t`` of the set ``P`` (a bitmask) under the map ``t``."""
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << t[low.bit_length() - 1]
        mask ^= low
    return out


def _byte_tables(n: int, t: Transformation) -> list[list[int]]:
    """``tables[j][v]``: the image under ``t`` of the points ``8j + b`` for the bits b of v."""
    tables = []
    for base in range(0, n, 8):
        row = [0] * 256
        for v in range(1, 256):
            low = v & -v
            x = base + low.bit_length() - 1
            row[v] = row[v ^ low] | (1 << t[x] if x < n else 0)
        tables.append(row)
    return tables


def _table_image(mask: int, tables: Sequence[Sequence[int]]) -> int:
    """``image_mask`` by one look-up per 8 points."""
    out = 0
    j = 0
    while mask:
        out |= tables[j][mask & 255]
        mask >>= 8
        j += 1
    return out


def _preimage_ranks(t: Transformation) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(ys, xs), ...]``: entry r pairs each point y with more than r preimages under
    ``t`` with its r-th preimage x (so each entry's ``ys`` are distinct)."""
    arr = np.asarray(t, dtype=np.intp)
    order = np.argsort(arr, kind="stable")
    image = arr[order]
    first = np.searchsorted(image, image, side="left")  # start of each point's fibre
    rank = np.arange(len(arr)) - first
    return [(image[rank == r], order[rank == r]) for r in range(int(rank.max()) + 1)]


_M1, _M2, _M3 = (np.uint64(m) for m in (0x00AA00AA00AA00AA, 0x0000CCCC0000CCCC,
                                        0x00000000F0F0F0F0))
_S7, _S14, _S28 = np.uint64(7), np.uint64(14), np.uint64(28)


def _transpose8(x: np.ndarray) -> np.ndarray:
    """Each uint64 as an 8x8 bit matrix (entry (r, c) at bit 8r + c), transposed
    (Hacker's Delight, section 7-3: three masked swaps)."""
    t = (x ^ (x >> _S7)) & _M1
    x = x ^ t ^ (t << _S7)
    t = (x ^ (x >> _S14)) & _M2
    x = x ^ t ^ (t << _S14)
    t = (x ^ (x >> _S28)) & _M3
    return x ^ t ^ (t << _S28)  # type: ignore[no-any-return]


def _by_points(rows: np.ndarray) -> np.ndarray:
    """(8J, W) bytes, row s = set s packed little-endian, to (8W, J): row x = point x,
    bit r of byte j = whether x is in set 8j + r (a bit-matrix transpose)."""
    f8, width = rows.shape
    j = f8 // 8
    x = np.ascontiguousarray(rows.reshape(j, 8, width).transpose(2, 0, 1))
    b = _transpose8(x.view(np.uint64).reshape(width, j)).view(np.uint8).reshape(width, j, 8)
    return np.ascontiguousarray(b.transpose(0, 2, 1)).reshape(8 * width, j)


def _by_sets(points: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_by_points`."""
    w8, j = points.shape
    width = w8 // 8
    x = np.ascontiguousarray(points.reshape(width, 8, j).transpose(0, 2, 1))
    b = _transpose8(x.view(np.uint64).reshape(width, j)).view(np.uint8).reshape(width, j, 8)
    return np.ascontiguousarray(b.transpose(1, 2, 0)).reshape(8 * j, width)


def _block_images(points: np.ndarray, ranks: list[tuple[np.ndarray, np.ndarray]]
                  ) -> np.ndarray:
    """The images under one map of a block of sets given point by point (:func:`_by_points`):
    row y of the image is the OR of the rows of y's preimages."""
    out = np.zeros_like(points)
    ys, xs = ranks[0]
    out[ys] = points[xs]
    for ys, xs in ranks[1:]:
        out[ys] |= points[xs]
    return out


def _too_large(n: int, limit: int) -> DecompositionTooLarge:
    return DecompositionTooLarge(
        f"holonomy: the orbit of image sets of this {n}-state semiautomaton "
        f"has more than {limit:,} sets; the decomposition would need "
        f"hours and gigabytes (docs/performance.md), so it stops here")


def orbit(n: int, gens: Sequence[Transformation], limit: int
          ) -> tuple[list[int], dict[int, int], list[tuple[int, ...]],
                     list[tuple[int, int] | None]]:
    """The orbit of ``X``: sets, their numbers, successor rows and BFS parents.

    Raises
    ------
    DecompositionTooLarge
        When a set numbered ``limit`` (the ``limit + 1``-th) would be added.
    """
    full = (1 << n) - 1
    sets = [full]
    index = {full: 0}
    parent: list[tuple[int, int] | None] = [None]
    succ: list[tuple[int, ...]] = []
    k = len(gens)
    width = (n + 7) // 8
    tabled = [_byte_tables(n, t) for t in gens] if n > 32 else None
    ranks = [_preimage_ranks(t) for t in gens] if n > 32 else None
    get = index.get
    i = 0
    while i < len(sets):
        stop = min(len(sets), i + BLOCK)
        if ranks is None or stop - i < _SMALL_BLOCK:
            images = [image_mask(sets[p], t) if tabled is None else _table_image(sets[p], tabled[g])
                      for p in range(i, stop) for g, t in enumerate(gens)]
        else:
            f8 = -(-(stop - i) // 8) * 8
            rows = np.zeros((f8, width), dtype=np.uint8)
            rows[:stop - i] = np.frombuffer(
                b"".join(s.to_bytes(width, "little") for s in sets[i:stop]),
                dtype=np.uint8).reshape(stop - i, width)
            points = _by_points(rows)
            # All letters at once: (letter, set, bytes), reordered to (set, letter, bytes),
            # the order in which the one-at-a-time loop visits the images.
            out = _by_sets(np.concatenate([_block_images(points, r) for r in ranks], axis=1))
            data = out.reshape(k, f8, width)[:, :stop - i].transpose(1, 0, 2).tobytes()
            from_bytes = int.from_bytes
            images = [from_bytes(data[o:o + width], "little") for o in range(0, len(data), width)]
        pos = 0
        for p in range(i, stop):
            row = []
            for g in range(k):
                img = images[pos]
                pos += 1
                j = get(img)
                if j is None:
                    j = len(sets)
                    if j >= limit:
                        raise _too_large(n, limit)
                    index[img] = j
                    sets.append(img)
                    parent.append((p, g))
                row.append(j)
            succ.append(tuple(row))
        i = stop
    return sets, index, succ, parent
