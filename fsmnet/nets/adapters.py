"""Adapters that let automaton-extraction tools query a :class:`Network`.

Two interfaces are offered, so that an extraction method can be run on a
compiled network whose true automaton is known (a ground-truth benchmark):

- :func:`network_sul` wraps a network as an AALpy ``SUL`` (system under
  learning) for ``aalpy.learning_algs.run_Lstar`` and friends.  AALpy is
  optional (``pip install aalpy``, or the ``extract`` extra) and imported only
  when the adapter is built.
- :class:`WeissRNN` offers the white-box interface of the L* extraction of
  Weiss, Goldberg and Yahav (ICML 2018): ``get_first_RState()``,
  ``get_next_RState(state, char)``, ``classify_state(state)`` and
  ``classify_word(word)``, with R-states as flat lists of floats.

Both step the network with its own semantics (the float reference
evaluator's ``step``), so what the tool sees is exactly what the network
computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmnet.errors import BackendUnavailable, NetworkFileError

if TYPE_CHECKING:
    from fsmnet.nets.network import Network


def _flatten(state: Any) -> list[float]:
    """An R-state as one flat list of floats (block tuples are concatenated)."""
    if isinstance(state, tuple):
        return [float(x) for part in state for x in np.ravel(part)]
    return [float(x) for x in np.ravel(state)]


class _Stepper:
    """Shared bookkeeping: symbol lookup and stepping with the network's semantics."""

    def __init__(self, net: Network) -> None:
        self.net = net
        self._index = {s: i for i, s in enumerate(net.symbols)}

    def symbol(self, char: Any) -> int:
        try:
            return self._index[char]
        except (KeyError, TypeError):
            raise NetworkFileError(f"<network {self.net.name}>: field 'word': symbol not in the "
                                   f"alphabet (value: {char!r})") from None

    def first(self) -> Any:
        return self.net.semantics.initial_state(self.net, False)

    def next(self, state: Any, char: Any) -> Any:
        return self.net.semantics.step(self.net, state, self.symbol(char), False)

    def label(self, state: Any) -> Any:
        return self.net.labels[self.net.semantics.readout(self.net, state, False)]


def network_sul(net: Network) -> Any:
    """An AALpy ``SUL`` that answers queries by running ``net``.

    ``step(letter)`` feeds one symbol (a symbol name) and returns the output
    label after it; ``step(None)`` (AALpy's query for the empty word) returns
    the label of the current state.  Use ``automaton_type="dfa"`` for an
    acceptor (labels ``False``/``True``) and ``"moore"`` otherwise.

    Raises
    ------
    BackendUnavailable
        When AALpy is not installed.
    """
    try:
        from aalpy.base import SUL
    except ImportError:
        raise BackendUnavailable("the AALpy adapter needs aalpy: pip install aalpy "
                                 "(or the 'extract' extra of fsmnet)") from None

    class NetworkSUL(SUL):  # type: ignore[misc, valid-type]
        """AALpy system under learning backed by an fsmnet network."""

        def __init__(self, network: Network) -> None:
            super().__init__()
            self.stepper = _Stepper(network)
            self.state = self.stepper.first()

        def pre(self) -> None:
            self.state = self.stepper.first()

        def post(self) -> None:
            pass

        def step(self, letter: Any) -> Any:
            if letter is not None:
                self.state = self.stepper.next(self.state, letter)
            return self.stepper.label(self.state)

    return NetworkSUL(net)


class WeissRNN:
    """A network behind the R-state interface of Weiss et al.'s L* extraction.

    Parameters
    ----------
    net
        Any network.  For a binary classifier the labels should be
        ``False``/``True`` (an acceptor); other labels are returned as they are.

    Attributes
    ----------
    alphabet
        The symbol names; a string when every symbol is one character, as the
        extraction code concatenates characters into words.
    """

    def __init__(self, net: Network) -> None:
        self._stepper = _Stepper(net)
        first = self._stepper.first()
        # Block networks keep a tuple of vectors; remember the sizes to split
        # a flat R-state back into blocks.
        self._sizes = [len(p) for p in first] if isinstance(first, tuple) else None
        symbols = net.symbols
        self.alphabet: str | tuple[str, ...] = (
            "".join(symbols) if all(len(s) == 1 for s in symbols) else symbols)

    def _wrap(self, state: Any) -> tuple[list[float], Any]:
        return _flatten(state), self._stepper.label(state)

    def _unwrap(self, rstate: Sequence[float]) -> Any:
        vec = np.asarray(rstate, dtype=np.float64).ravel()
        want = sum(self._sizes) if self._sizes else self._stepper.net.hidden_size
        if vec.shape[0] != want:
            raise NetworkFileError(f"<WeissRNN>: field 'RState': wrong length "
                                   f"(value: {vec.shape[0]}, expected {want})")
        if self._sizes is None:
            return vec
        cuts = np.cumsum(self._sizes)[:-1]
        return tuple(np.split(vec, cuts))

    def get_first_RState(self) -> tuple[list[float], Any]:  # noqa: N802 - their API name
        """(h_0 as a list of floats, its classification)."""
        return self._wrap(self._stepper.first())

    def get_next_RState(self, state: Sequence[float], char: Any) -> tuple[list[float], Any]:  # noqa: N802
        """(the R-state after reading ``char`` from ``state``, its classification)."""
        return self._wrap(self._stepper.next(self._unwrap(state), char))

    def classify_state(self, state: Sequence[float]) -> Any:
        """The output label of an R-state returned earlier."""
        return self._stepper.label(self._unwrap(state))

    def classify_word(self, word: Sequence[Any]) -> Any:
        """The output label after a word (a string or a sequence of symbol names)."""
        state = self._stepper.first()
        for char in word:
            state = self._stepper.next(state, char)
        return self._stepper.label(state)
