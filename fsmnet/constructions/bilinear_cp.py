"""bilinear-cp: exact CP factors of the one-hot transition tensor (docs/constructions.md).

The one-hot tensor of the minimal automaton is W[i, j, σ] = 1 iff δ(j, σ) = i.
A rank-R CP factorization W = Σ_r U[:, r] ⊗ Z[:, r] ⊗ V[:, r] gives the
network A(x) = U diag(Vᵀx) Zᵀ, which has the same matrices A(e_σ) = W[:, :, σ]
as bilinear-full, so it simulates the automaton exactly.

Three easy factorizations give three upper bounds on the rank; they are the
sums of the slice ranks of W along each of its three modes:

``image``        Σ_σ |image(σ)|: per symbol σ and image point i,
                 U = e_i, V = e_σ, Z = indicator of the preimage σ⁻¹(i).
``transitions``  Σ_j |{δ(j, σ) : σ}|: per source j and target i,
                 U = e_i, Z = e_j, V = indicator of {σ : δ(j, σ) = i}.
``slices``       Σ_i rank W[i, :, :]: per target i, an exact *integer* rank
                 factorization of the 0/1 (states × symbols) matrix W[i, :, :].
                 The rank over Q of an integer matrix equals the rank of the
                 lattice its columns span, and a basis of that lattice gives
                 integer factors; integers keep float64 storage exact (a
                 rational factorization with denominators such as 1/3 could not
                 be stored exactly).

The largest rank of the three unfoldings of W is a lower bound on the CP rank
(over any field); when the best bound meets it, the rank is optimal.

Otherwise a bounded search looks for a smaller decomposition with every factor
entry in {-1, 0, 1} (exact in float64), encoded as a Boolean problem for Z3 and
tried at ranks R-1, R-2, ... until the solver says UNSAT or gives up.  The
search is *deterministic*: each rank gets a fresh Z3 context, a fixed seed and
a resource limit (``search_rlimit``, Z3's machine-independent step counter),
so the rank found depends only on the automaton, the options and the Z3
version, never on the machine's load.  ``search_seconds`` is an optional extra
wall-clock guard (off by default; when it fires, the outcome says so and the
result is no longer reproducible).  Limits: UNSAT only rules out {-1, 0, 1}
factors (a rational decomposition of that rank may still exist); the search is
skipped when n²·|Σ|·R exceeds ``SEARCH_MAX_CELLS``; there is no symmetry
breaking, so UNSAT answers are only reached on tiny cases
(:mod:`fsmnet.constructions.bilinear_cp_search`).  With the default
limit: modadd:2 goes from 4 to 3 (rank 2 proved impossible with {-1, 0, 1}
entries; it needs 1/2), modadd:3 from 9 to 5 (lower bound 3).

The options record the three flattening ranks over Q (``flattening_ranks``)
and their maximum (``lower_bound``) beside the rank found.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fsmnet.automata import Automaton
from fsmnet.constructions.bilinear_cp_search import DEFAULT_SEARCH_RLIMIT, lower_rank
from fsmnet.constructions.bilinear_full import one_hot_coordinates
from fsmnet.errors import NotExpressible, SpecError
from fsmnet.nets import Network
from fsmnet.nets.sparse import SparseTensor, columns, compact, coo

Terms = tuple[np.ndarray | SparseTensor, np.ndarray, np.ndarray | SparseTensor]
"""U (n, R), V (k, R), Z (n, R): integer-valued; U and Z as their non-zeros where a
builder knows them (image and transition terms: no n × R array at 5,040 states)."""

BOUND_NAMES = ("image", "transitions", "slices")


# ------------------------------------------------------------ exact algebra
def rational_rank(rows: list[list[int]] | np.ndarray | SparseTensor) -> int:
    """Rank over Q of an integer matrix, exactly.

    Sparse fraction-free elimination in Python integers: every row is a dict
    {column: nonzero int}, a pivot row eliminates its column from the others
    by integer cross-multiplication, and rows are divided by the gcd of their
    entries to keep numbers small.  Same rank as Gaussian elimination in
    Fractions (scaling a row by a nonzero integer changes no rank), but the
    one-hot unfoldings are 0/1 and very sparse, so this stays fast at 1,000
    states where dense Fractions take minutes.
    """
    if isinstance(rows, SparseTensor):
        where, values = tuple(rows.indices), rows.values
    else:
        arr = np.asarray(rows)
        if arr.size == 0:
            return 0
        where = np.nonzero(arr)
        values = arr[where]
    # The non-zeros only (row-major order), so a 0/1 unfolding of 5,040 × 10,080 costs
    # its 10,080 entries rather than 50 million Python look-ups.
    pending: list[dict[int, int]] = []
    current = -1
    for r, c, x in zip(where[0].tolist(), where[1].tolist(), values.tolist()):
        if not x:
            continue
        if r != current:
            pending.append({})
            current = r
        pending[-1][c] = int(x)
    # Sparse rows first: fewer fill-ins when they become pivots.
    pending.sort(key=len)
    pivots: dict[int, dict[int, int]] = {}  # pivot column -> reduced pivot row
    for row in pending:
        while row:
            # The smallest column of the row that is a pivot column gets eliminated.
            hit = next((c for c in sorted(row) if c in pivots), None)
            if hit is None:
                break
            prow = pivots[hit]
            a, b = prow[hit], row[hit]
            new = {c: a * x for c, x in row.items()}
            for c, x in prow.items():
                v = new.get(c, 0) - b * x
                if v:
                    new[c] = v
                else:
                    new.pop(c, None)
            g = 0
            for x in new.values():
                g = math.gcd(g, x)
            row = {c: x // g for c, x in new.items()} if g > 1 else new
        if row:
            pivots[min(row)] = row
    return len(pivots)


def integer_rank_factorization(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer B (m, r), R (r, p) with matrix = B @ R and r = rank over Q.

    Column operations reduce ``matrix`` to a column echelon form B·T with T
    unimodular; the inverse operations, applied as row operations to an
    identity, keep the invariant ``matrix = B @ R`` with R integer.
    """
    b = [list(map(int, row)) for row in np.asarray(matrix).tolist()]
    m, p = len(b), len(b[0])
    r = [[int(i == j) for j in range(p)] for i in range(p)]

    def add_col(dst: int, src: int, c: int) -> None:  # col_dst += c·col_src
        for row in b:
            row[dst] += c * row[src]
        r[src] = [x - c * y for x, y in zip(r[src], r[dst])]

    def swap(c1: int, c2: int) -> None:
        for row in b:
            row[c1], row[c2] = row[c2], row[c1]
        r[c1], r[c2] = r[c2], r[c1]

    lead = 0
    for i in range(m):
        if lead == p:
            break
        # Euclid on row i over columns lead..p-1 until one nonzero entry is left.
        while True:
            nz = [c for c in range(lead, p) if b[i][c] != 0]
            if len(nz) <= 1:
                break
            small = min(nz, key=lambda c: abs(b[i][c]))
            for c in nz:
                if c != small:
                    add_col(c, small, -(b[i][c] // b[i][small]))
        nz = [c for c in range(lead, p) if b[i][c] != 0]
        if nz:
            swap(lead, nz[0])
            lead += 1
    basis = np.array([[row[c] for c in range(lead)] for row in b], dtype=np.int64)
    coeffs = np.array(r[:lead], dtype=np.int64).reshape(lead, p)
    return basis.reshape(m, lead), coeffs


def reconstruct_entries(u: np.ndarray | SparseTensor, v: np.ndarray,
                        z: np.ndarray | SparseTensor) -> dict[tuple[int, int, int], Fraction]:
    """Σ_r U[:, r] ⊗ Z[:, r] ⊗ V[:, r] in Fractions, as its non-zero entries
    ``{(i, j, σ): value}``, from the stored float64 factors (dense or sparse).

    Term by term on the supports of the three columns: the one-hot factors of the
    constructions have one or a few entries per column, so this is about the tensor's
    non-zeros, not n²·|Σ|.
    """
    u_cols, z_cols = columns(u), columns(z)
    v_cols = columns(np.asarray(v, dtype=np.float64))
    out: dict[tuple[int, int, int], Fraction] = {}
    for r in range(len(u_cols)):
        for i, a in u_cols[r]:
            for j, c in z_cols[r]:
                for sym, b in v_cols[r]:
                    key = (i, j, sym)
                    out[key] = out.get(key, Fraction(0)) + Fraction(a) * Fraction(c) * Fraction(b)
    return {key: x for key, x in out.items() if x}


def reconstruct_exact(u: np.ndarray, v: np.ndarray, z: np.ndarray) -> np.ndarray:
    """:func:`reconstruct_entries` as the dense (n, n, |Σ|) object array of Fractions."""
    n, k = u.shape[0], v.shape[0]
    out = np.full((n, n, k), Fraction(0), dtype=object)
    for key, x in reconstruct_entries(u, v, z).items():
        out[key] = x
    return out


# ------------------------------------------------------------- the bounds
def _stack(terms: list[tuple[np.ndarray, np.ndarray, np.ndarray]], n: int, k: int) -> Terms:
    if not terms:
        return (np.zeros((n, 0), np.int64), np.zeros((k, 0), np.int64),
                np.zeros((n, 0), np.int64))
    u, v, z = (np.stack([t[i] for t in terms], axis=1).astype(np.int64) for i in range(3))
    return u, v, z


def _ones(shape: tuple[int, int], rows: np.ndarray, cols: np.ndarray) -> SparseTensor:
    return coo(shape, np.stack([rows, cols]), np.ones(len(rows)))


def image_terms(delta: np.ndarray) -> Terms:
    """One term per (σ, image point i): U = e_i, V = e_σ, Z = 1[δ(·, σ) = i]."""
    k, n = delta.shape
    images = [np.unique(delta[s]) for s in range(k)]
    first = np.cumsum([0] + [len(im) for im in images])
    rank = int(first[-1])
    v = np.zeros((k, rank), np.int64)
    for s in range(k):
        v[s, first[s]:first[s + 1]] = 1
    u_rows = np.concatenate(images) if images else np.zeros(0, np.int64)
    z_cols = np.concatenate([first[s] + np.searchsorted(images[s], delta[s]) for s in range(k)]
                            ) if k else np.zeros(0, np.int64)
    return (_ones((n, rank), u_rows.astype(np.int64), np.arange(rank)), v,
            _ones((n, rank), np.tile(np.arange(n), k), z_cols.astype(np.int64)))


def transition_terms(delta: np.ndarray) -> Terms:
    """One term per (source j, target i): U = e_i, Z = e_j, V = 1[δ(j, ·) = i]."""
    k, n = delta.shape
    pairs = [(j, int(i)) for j in range(n) for i in np.unique(delta[:, j])]
    source, target = (np.array(x, dtype=np.int64) for x in zip(*pairs)) if pairs else \
        (np.zeros(0, np.int64), np.zeros(0, np.int64))
    cols = np.arange(len(pairs))
    v = (delta[:, source] == target).astype(np.int64)
    return _ones((n, len(pairs)), target, cols), v, _ones((n, len(pairs)), source, cols)


def slice_terms(delta: np.ndarray) -> Terms:
    """Per target i, an integer rank factorization of W[i, :, :] (states × symbols)."""
    k, n = delta.shape
    terms = []
    for i in range(n):
        sl = (delta.T == i).astype(np.int64)  # sl[j, σ] = W[i, j, σ]
        if not sl.any():
            continue
        basis, coeffs = integer_rank_factorization(sl)
        unit = np.zeros(n, dtype=np.int64)
        unit[i] = 1
        terms += [(unit, coeffs[r], basis[:, r]) for r in range(basis.shape[1])]
    return _stack(terms, n, k)


def easy_bounds(delta: np.ndarray) -> dict[str, int]:
    """The three easy upper bounds on the CP rank, by their counting formulas."""
    k, n = delta.shape
    return {
        "image": int(sum(len(np.unique(delta[s])) for s in range(k))),
        "transitions": int(sum(len(np.unique(delta[:, j])) for j in range(n))),
        "slices": int(sum(rational_rank((delta.T == i).astype(np.int64)) for i in range(n))),
    }


def flattening_ranks(w: np.ndarray | SparseTensor) -> tuple[int, int, int]:
    """Ranks over Q of the three unfoldings of W (target, source, symbol modes), from
    its non-zeros (W dense or sparse)."""
    n, _, k = w.shape
    if isinstance(w, SparseTensor):
        (i, j, s), x = w.indices, w.values
    else:
        (i, j, s) = np.nonzero(w)
        x = np.asarray(w)[i, j, s]
    return (rational_rank(coo((n, n * k), np.stack([i, j * k + s]), x)),
            rational_rank(coo((n, n * k), np.stack([j, i * k + s]), x)),
            rational_rank(coo((k, n * n), np.stack([s, i * n + j]), x)))


def flattening_lower_bound(w: np.ndarray) -> int:
    """max over the three modes of the rank of the unfolding of W: CP rank ≥ this."""
    return max(flattening_ranks(w))


# ------------------------------------------------------------ construction
def _sparse(matrix: np.ndarray | SparseTensor) -> SparseTensor:
    """A factor's non-zeros as float64 (a dense factor is scanned once, not copied)."""
    if isinstance(matrix, SparseTensor):
        return matrix
    where = np.nonzero(matrix)
    return SparseTensor(tuple(int(d) for d in matrix.shape),
                        np.array(where, dtype=np.int64).reshape(2, -1),
                        np.asarray(matrix[where], dtype=np.float64))


def _padded(matrix: np.ndarray | SparseTensor, pad: int) -> np.ndarray | SparseTensor:
    """``pad`` zero columns appended (row-major order of the entries is unchanged)."""
    if isinstance(matrix, SparseTensor):
        return SparseTensor((matrix.shape[0], matrix.shape[1] + pad), matrix.indices,
                            matrix.values)
    return np.hstack([matrix, np.zeros((matrix.shape[0], pad), matrix.dtype)])


def compile_bilinear_cp(automaton: Automaton, *, rank: int | None = None,
                        bounds: str = "best", search: bool = True,
                        search_rlimit: int = DEFAULT_SEARCH_RLIMIT,
                        search_seconds: float | None = None) -> Network:
    """Exact CP-factored bilinear network of a (minimal) automaton.

    Parameters
    ----------
    rank
        Wanted rank R.  The result has exactly R terms (padded with zero terms
        when a smaller exact decomposition was found); ``NotExpressible`` when
        no exact decomposition of rank ≤ R was found.
    bounds
        Which easy factorization to start from: ``"image"``, ``"transitions"``,
        ``"slices"``, or ``"best"`` (the smallest, default).
    search
        Try to lower the rank further with the bounded {-1, 0, 1} Z3 search.
    search_rlimit
        Z3 resource units per tried rank (deterministic: same automaton and
        options, same rank and byte-identical weights on any machine).
    search_seconds
        Optional wall-clock guard on the whole search (default None: none).

    The network's options record ``rank``, ``bounds`` (the three values),
    ``flattening_ranks`` (the three unfolding ranks over Q), ``lower_bound``
    (their maximum: CP rank ≥ it), ``start`` and ``search`` (what happened).
    """
    if bounds not in ("best", *BOUND_NAMES):
        raise SpecError(f"must be one of best, {', '.join(BOUND_NAMES)}", source="<compile>",
                        field="options.bounds", value=bounds)
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        raise SpecError("must be a positive integer", source="<compile>",
                        field="options.rank", value=rank)
    if isinstance(search_rlimit, bool) or not isinstance(search_rlimit, int) \
            or search_rlimit < 1:
        raise SpecError("must be a positive integer", source="<compile>",
                        field="options.search_rlimit", value=search_rlimit)
    if search_seconds is not None and (isinstance(search_seconds, bool) or not isinstance(
            search_seconds, int | float) or not search_seconds > 0):
        raise SpecError("must be a positive number or null", source="<compile>",
                        field="options.search_seconds", value=search_seconds)
    w, h0, readout = one_hot_coordinates(automaton)
    delta = automaton.delta
    builders = {"image": image_terms, "transitions": transition_terms, "slices": slice_terms}
    values = easy_bounds(delta)
    start = min(BOUND_NAMES, key=lambda b: values[b]) if bounds == "best" else bounds
    terms = builders[start](delta)
    ranks = flattening_ranks(w)
    lower = max(ranks)
    outcome = "not run"
    if terms[0].shape[1] <= lower:
        outcome = "optimal: equals the flattening lower bound"
    elif search and (rank is None or rank < terms[0].shape[1]):
        terms, outcome = lower_rank(w, terms, max(lower, rank or 0), search_rlimit,
                                    None if search_seconds is None else float(search_seconds))
    found = terms[0].shape[1]
    if rank is not None and found > rank:
        raise NotExpressible(f"bilinear-cp: no exact decomposition of rank {rank} found "
                             f"(best found {found}; lower bound {lower}; search: {outcome})")
    u, v, z = terms
    if rank is not None and rank > found:
        pad = rank - found
        u, z = _padded(u, pad), _padded(z, pad)
        v = np.hstack([v, np.zeros((v.shape[0], pad), np.int64)])
    stored_u, stored_z = compact(_sparse(u)), compact(_sparse(z))
    stored_v = v.astype(np.float64)
    # The float64 tensors are what gets stored: check them, not the integers.
    want = {key: Fraction(1) for key in zip(*(axis.tolist() for axis in w.indices))}
    if reconstruct_entries(stored_u, stored_v, stored_z) != want:
        raise AssertionError("bilinear-cp: the CP factors do not reconstruct the tensor")
    return Network(arch="bilinear-cp",
                   params={"U": stored_u, "V": stored_v, "Z": stored_z, "h0": h0,
                           "readout": compact(readout)},
                   symbols=automaton.symbols, labels=automaton.labels,
                   options={"construction": "cp", "rank": int(u.shape[1]), "bounds": values,
                            "flattening_ranks": list(ranks), "lower_bound": lower,
                            "start": start, "search": outcome,
                            "states": list(automaton.states)},
                   name=automaton.name)
