"""The immutable, validated :class:`Automaton` (a deterministic Moore machine).

States and symbols are numbered ``0..n-1`` internally; their names are kept
for display and for spec files.  The transition table is an int array
``delta[symbol, state]`` so that running a word is one gather per symbol.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from fsmnet.automata.words import symbol_indices
from fsmnet.errors import SpecError

Label = Hashable
"""An output label: ``True``/``False`` for acceptors, or any JSON scalar."""


class Automaton:
    """A deterministic Moore machine (Q, Σ, δ, q0, λ), or a semiautomaton.

    Parameters
    ----------
    delta
        Integer array of shape ``(n_symbols, n_states)``;
        ``delta[a, q]`` is the state reached from ``q`` on symbol ``a``.
    symbols
        Names of the input symbols, in index order (distinct strings).
    states
        Names of the states, in index order (distinct strings).
        Defaults to ``"0", "1", ...``.
    initial
        Index of the initial state, or ``None`` for a semiautomaton.
    outputs
        One output label per state (``True``/``False`` for an acceptor), or
        ``None`` for a semiautomaton.
    name, description
        Free text.

    Raises
    ------
    SpecError
        If any part is inconsistent (wrong shape, out-of-range targets,
        duplicate names, empty alphabet, ...).

    Examples
    --------
    >>> import numpy as np
    >>> parity = Automaton(delta=np.array([[1, 0]]), symbols=("a",),
    ...                    initial=0, outputs=(True, False), name="parity")
    >>> parity.accepts(["a", "a"])
    True
    """

    __slots__ = (
        "_delta",
        "_symbols",
        "_states",
        "_initial",
        "_outputs",
        "_name",
        "_description",
        "_symbol_index",
        "_labels",
        "_output_ids",
    )

    _delta: np.ndarray
    _symbols: tuple[str, ...]
    _states: tuple[str, ...]
    _initial: int | None
    _outputs: tuple[Label, ...] | None
    _name: str
    _description: str
    _symbol_index: dict[str, int]
    _labels: tuple[Label, ...]
    _output_ids: np.ndarray

    def __init__(
        self,
        *,
        delta: np.ndarray | Sequence[Sequence[int]],
        symbols: Sequence[str],
        states: Sequence[str] | None = None,
        initial: int | None = 0,
        outputs: Sequence[Label] | None = None,
        name: str = "",
        description: str = "",
    ) -> None:
        src = f"<automaton {name}>" if name else "<automaton>"
        table = np.asarray(delta)
        if table.ndim != 2:
            raise SpecError("delta must be a 2-D table [symbol, state]", source=src,
                            field="delta", value=table.shape)
        if table.shape[0] == 0:
            raise SpecError("the input alphabet is empty", source=src,
                            field="input_symbols", value=[])
        if table.shape[1] == 0:
            raise SpecError("an automaton needs at least one state", source=src,
                            field="states", value=[])
        if not np.issubdtype(table.dtype, np.integer):
            raise SpecError("delta must hold integers", source=src, field="delta",
                            value=str(table.dtype))
        k, n = table.shape
        if table.min() < 0 or table.max() >= n:
            raise SpecError("a transition targets a state out of range", source=src,
                            field="delta", value=int(table.max()))
        symbols = tuple(symbols)
        states = tuple(str(i) for i in range(n)) if states is None else tuple(states)
        _check_names(symbols, k, "input_symbols", src)
        _check_names(states, n, "states", src)
        if initial is not None:
            if isinstance(initial, bool) or not 0 <= int(initial) < n:
                raise SpecError("initial state out of range", source=src,
                                field="initial_state", value=initial)
            initial = int(initial)
        if outputs is not None:
            # numpy scalars become plain Python values, so labels stay JSON-able.
            outputs = tuple(o.item() if isinstance(o, np.generic) else o for o in outputs)
            if len(outputs) != n:
                raise SpecError(f"need one output per state ({n})", source=src,
                                field="outputs", value=len(outputs))
            for lab in outputs:
                if not isinstance(lab, (bool, int, str)):
                    raise SpecError("output labels must be bool, int or str", source=src,
                                    field="outputs", value=lab)
        delta_table = np.ascontiguousarray(table, dtype=np.int64)
        delta_table.setflags(write=False)
        if outputs is None:
            labels: tuple[Label, ...] = ()
            output_ids = np.zeros(0, dtype=np.int64)
        else:
            labels = _ordered_labels(outputs)
            pos = {_key(lab): i for i, lab in enumerate(labels)}
            output_ids = np.array([pos[_key(o)] for o in outputs], dtype=np.int64)
        output_ids.setflags(write=False)
        # Validated above; from here on the object never changes (__setattr__ refuses).
        for attr, value in (("_delta", delta_table), ("_symbols", symbols), ("_states", states),
                            ("_initial", initial), ("_outputs", outputs), ("_name", str(name)),
                            ("_description", str(description)),
                            ("_symbol_index", {s: i for i, s in enumerate(symbols)}),
                            ("_labels", labels), ("_output_ids", output_ids)):
            object.__setattr__(self, attr, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Automaton is immutable (cannot set {name!r}); "
                             "use .replace(...) for a changed copy")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Automaton is immutable (cannot delete {name!r})")

    def __copy__(self) -> Automaton:
        return self  # immutable: a copy is the object itself

    def __deepcopy__(self, memo: dict[int, Any]) -> Automaton:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Rebuilt through the validating constructor (Dask ships automata to workers).
        return (_rebuild, (self._delta, self._symbols, self._states, self._initial,
                           self._outputs, self._name, self._description))

    # ----------------------------------------------------------------- fields
    @property
    def delta(self) -> np.ndarray:
        """Read-only int64 array ``delta[symbol, state]``."""
        return self._delta

    @property
    def symbols(self) -> tuple[str, ...]:
        return self._symbols

    @property
    def states(self) -> tuple[str, ...]:
        return self._states

    @property
    def initial(self) -> int | None:
        return self._initial

    @property
    def outputs(self) -> tuple[Label, ...] | None:
        return self._outputs

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def n_states(self) -> int:
        return int(self._delta.shape[1])

    @property
    def n_symbols(self) -> int:
        return int(self._delta.shape[0])

    @property
    def is_semiautomaton(self) -> bool:
        """True when there is no initial state or no outputs."""
        return self._initial is None or self._outputs is None

    @property
    def is_acceptor(self) -> bool:
        """True when every output label is a ``bool``."""
        return self._outputs is not None and all(isinstance(o, bool) for o in self._outputs)

    @property
    def labels(self) -> tuple[Label, ...]:
        """The distinct output labels, in a fixed order (``False`` before ``True``)."""
        return self._labels

    @property
    def output_ids(self) -> np.ndarray:
        """For each state, the index of its label in :attr:`labels`."""
        return self._output_ids

    # -------------------------------------------------------------- running
    def symbol_index(self, symbol: str) -> int:
        """Index of a symbol name; raises ``SpecError`` for an unknown symbol."""
        try:
            return self._symbol_index[symbol]
        except (KeyError, TypeError):
            raise SpecError("symbol not in the input alphabet", source=self._src(),
                            field="word", value=symbol) from None

    def encode(self, word: Iterable[str] | str) -> np.ndarray:
        """Turn a word (a sequence of symbol names) into an int64 index array.

        A plain string is split into characters when every symbol is one
        character long; otherwise pass a list of names.
        """
        if isinstance(word, str):
            if not all(len(s) == 1 for s in self._symbols):
                raise SpecError("symbols have several characters: pass a list of symbol names",
                                source=self._src(), field="word", value=word)
            word = list(word)
        return np.fromiter((self.symbol_index(s) for s in word), dtype=np.int64)

    def decode(self, indices: Iterable[int]) -> list[str]:
        """Symbol names of an index sequence."""
        return [self._symbols[int(i)] for i in indices]

    def run(self, word: Iterable[int] | np.ndarray, start: int | None = None) -> int:
        """State reached from ``start`` (default: the initial state) on a word of indices.

        Raises :class:`SpecError` naming the value for anything but symbol indices
        ``0..n_symbols-1`` (names go through :meth:`encode` or :meth:`output_of`).
        """
        q = self.start_state(start)
        d = self._delta
        for a in symbol_indices(word, self.n_symbols, self._src(), "run"):
            q = int(d[a, q])
        return q

    def trace(self, word: Iterable[int] | np.ndarray, start: int | None = None) -> np.ndarray:
        """States after each prefix of the word, the empty prefix included (length n+1).

        The word is symbol indices, as for :meth:`run`.
        """
        q = self.start_state(start)
        w = symbol_indices(word, self.n_symbols, self._src(), "trace")
        out = np.empty(len(w) + 1, dtype=np.int64)
        out[0] = q
        d = self._delta
        for t, a in enumerate(w):
            q = int(d[a, q])
            out[t + 1] = q
        return out

    def output(self, state: int) -> Label:
        """The label λ(state)."""
        if self._outputs is None:
            raise SpecError("a semiautomaton has no outputs", source=self._src(),
                            field="outputs", value=None)
        return self._outputs[state]

    def output_of(self, word: Iterable[str] | str) -> Label:
        """λ(δ(q0, word)) for a word of symbol names."""
        return self.output(self.run(self.encode(word)))

    def accepts(self, word: Iterable[str] | str) -> bool:
        """True when an acceptor ends in a state labelled ``True``.

        Raises :class:`SpecError` on a machine whose labels are not ``True``/``False``
        (use :meth:`output_of` there): "not accepted" would be a guess.
        """
        if not self.is_acceptor:
            raise SpecError("accepts() needs an acceptor (labels True/False); this machine "
                            "has other labels: use output_of()", source=self._src(),
                            field="outputs", value=list(self._labels)[:8])
        return self.output_of(word) is True

    # ---------------------------------------------------------- derivations
    def replace(self, **changes: Any) -> Automaton:
        """A copy with some constructor fields changed (validated again)."""
        fields: dict[str, Any] = dict(delta=self._delta, symbols=self._symbols, states=self._states,
                      initial=self._initial, outputs=self._outputs, name=self._name,
                      description=self._description)
        fields.update(changes)
        return Automaton(**fields)

    def reachable_states(self) -> list[int]:
        """States reachable from the initial state (all states of a semiautomaton)."""
        if self._initial is None:
            return list(range(self.n_states))
        seen = [False] * self.n_states
        seen[self._initial] = True
        order = [self._initial]
        for q in order:
            for a in range(self.n_symbols):
                r = int(self._delta[a, q])
                if not seen[r]:
                    seen[r] = True
                    order.append(r)
        return sorted(order)

    def restrict(self, keep: Sequence[int]) -> Automaton:
        """The sub-automaton on states ``keep`` (which must be closed under δ)."""
        keep = list(keep)
        new = {q: i for i, q in enumerate(keep)}
        try:
            table = np.vectorize(new.__getitem__, otypes=[np.int64])(self._delta[:, keep])
        except KeyError as exc:
            raise SpecError("restricted state set is not closed under transitions",
                            source=self._src(), field="states", value=exc.args[0]) from None
        return self.replace(
            delta=table,
            states=[self._states[q] for q in keep],
            initial=None if self._initial is None else new[self._initial],
            outputs=None if self._outputs is None else [self._outputs[q] for q in keep],
        )

    def minimal(self) -> Automaton:
        """The minimal equivalent Moore machine (see :mod:`fsmnet.automata.minimize`)."""
        from fsmnet.automata.minimize import minimize

        return minimize(self)

    def to_dict(self) -> dict[str, Any]:
        """The spec-file form (automata-lib field names, plus ``outputs``)."""
        d: dict[str, Any] = {"name": self._name} if self._name else {}
        if self._description:
            d["description"] = self._description
        d["states"] = list(self._states)
        d["input_symbols"] = list(self._symbols)
        d["transitions"] = {
            s: {a: self._states[int(self._delta[i, j])] for i, a in enumerate(self._symbols)}
            for j, s in enumerate(self._states)
        }
        if self._initial is not None:
            d["initial_state"] = self._states[self._initial]
        if self._outputs is not None:
            if self.is_acceptor:
                d["final_states"] = [s for s, o in zip(self._states, self._outputs) if o]
            else:
                d["outputs"] = dict(zip(self._states, self._outputs))
        return d

    # ------------------------------------------------------------ protocol
    def __eq__(self, other: object) -> bool:
        """Structural equality (same table, names, outputs); not language equivalence."""
        if not isinstance(other, Automaton):
            return NotImplemented
        return (
            np.array_equal(self._delta, other._delta)
            and self._symbols == other._symbols
            and self._states == other._states
            and self._initial == other._initial
            and self._outputs == other._outputs
        )

    def __hash__(self) -> int:
        return hash((self._delta.tobytes(), self._symbols, self._states, self._initial,
                     self._outputs))

    def __repr__(self) -> str:
        kind = "semiautomaton" if self.is_semiautomaton else (
            "acceptor" if self.is_acceptor else f"Moore machine, {len(self._labels)} labels")
        nm = f" {self._name!r}" if self._name else ""
        return f"<Automaton{nm}: {self.n_states} states, {self.n_symbols} symbols, {kind}>"

    def _repr_svg_(self) -> str | None:
        """The state diagram for Jupyter (None without Graphviz ``dot``)."""
        from fsmnet.automata.render import automaton_svg

        return automaton_svg(self)

    def _repr_html_(self) -> str:
        """A card for Jupyter: sizes, alphabet and the state diagram."""
        from fsmnet.automata.render import automaton_html

        return automaton_html(self)

    # ------------------------------------------------------------- helpers
    def _src(self) -> str:
        return f"<automaton {self._name}>" if self._name else "<automaton>"

    def start_state(self, start: int | None = None) -> int:
        """The state a run begins in: ``start`` when given (range-checked), else q0.

        Raises
        ------
        SpecError
            For a ``start`` that is not a state index, or when neither ``start``
            nor an initial state is there.
        """
        if start is not None:
            if isinstance(start, (bool, np.bool_)) or not isinstance(start, (int, np.integer)):
                raise SpecError("start must be a state index", source=self._src(),
                                field="start", value=start)
            if not 0 <= int(start) < self.n_states:
                raise SpecError(f"start state out of range 0..{self.n_states - 1}",
                                source=self._src(), field="start", value=int(start))
            return int(start)
        if self._initial is None:
            raise SpecError("a semiautomaton has no initial state: pass start=",
                            source=self._src(), field="initial_state", value=None)
        return self._initial


def _rebuild(delta: np.ndarray, symbols: tuple[str, ...], states: tuple[str, ...],
             initial: int | None, outputs: tuple[Label, ...] | None, name: str,
             description: str) -> Automaton:
    return Automaton(delta=delta, symbols=symbols, states=states, initial=initial,
                     outputs=outputs, name=name, description=description)


def _check_names(names: tuple[str, ...], count: int, field: str, src: str) -> None:
    if len(names) != count:
        raise SpecError(f"expected {count} names", source=src, field=field, value=len(names))
    seen: set[str] = set()
    for nm in names:
        if not isinstance(nm, str):
            raise SpecError("names must be strings", source=src, field=field, value=nm)
        if nm in seen:
            raise SpecError("duplicate name", source=src, field=field, value=nm)
        seen.add(nm)


def _key(label: Label) -> tuple[str, Label]:
    # True == 1 in Python: keep bools and ints apart in the label index.
    return (type(label).__name__, label)


def _ordered_labels(outputs: tuple[Label, ...]) -> tuple[Label, ...]:
    distinct: dict[tuple[str, Any], Label] = {_key(o): o for o in outputs}
    order = sorted(distinct, key=lambda k: (k[0], str(k[1])) if k[0] != "int" else (k[0], k[1]))
    return tuple(distinct[k] for k in order)
