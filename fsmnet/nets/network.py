"""The :class:`Network` object: named numpy arrays plus metadata, and its file format.

Files are safetensors with a JSON metadata header (docs/formats.md).  Loading
never unpickles anything: safetensors holds raw tensors only, and the header is
plain JSON that is validated field by field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

import numpy as np

from fsmnet.errors import NetworkFileError
from fsmnet.nets.semantics import Semantics, semantics_for
from fsmnet.nets.sparse import SparseTensor, decode, encode

FORMAT_NAME = "fsmnet-network"
FORMAT_VERSION = 4
"""Newest file format.  2 added the prefix links of MinMax cascades (``link0``...,
fsmnet.nets.minmax_cascade), 3 their components and joins (``unit_component``,
``join1``...: product cascades), 4 sparse tensors (fsmnet.nets.sparse); a file is
written with the oldest version that describes it, so networks without links or
sparse tensors stay version 1, which every reader takes."""
READ_VERSIONS = (1, 2, 3, 4)


def file_version(params: Mapping[str, Any]) -> int:
    """The format version a network's tensors need (2 with cascade prefix links, 3 with
    cascade components, 4 with a sparse tensor)."""
    if any(isinstance(v, SparseTensor) for v in params.values()):
        return 4
    if "unit_component" in params:
        return 3
    return 2 if "link0" in params else 1


class _DenseView(MutableMapping[str, np.ndarray]):
    """Tensor name -> dense read-only array, a copy of the network's table (changing it
    changes nothing in the network, as with the dict it replaces); a sparse tensor is
    expanded when first read (and kept by the network), so code that never reads it
    never pays for it."""

    def __init__(self, net: Network) -> None:
        self._net = net
        self._items: dict[str, Any] = dict(net._params)

    def __getitem__(self, key: str) -> np.ndarray:
        value = self._items[key]
        if not isinstance(value, SparseTensor):
            return value  # type: ignore[no-any-return]
        if value is not self._net._params.get(key):
            return value.to_dense()
        dense: np.ndarray = self._net.cached(f"dense:{key}", value.to_dense)
        dense.setflags(write=False)
        return dense

    def __setitem__(self, key: str, value: np.ndarray) -> None:
        self._items[key] = value

    def __delitem__(self, key: str) -> None:
        del self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class Network:
    """A compiled (or user-supplied) recurrent network.

    Parameters
    ----------
    arch
        Stable architecture id, e.g. ``"bilinear-full"`` (docs/formats.md).
    params
        Tensor name -> numpy array or :class:`~fsmnet.nets.sparse.SparseTensor`
        (stored sparse where the architecture's semantics list the name in
        ``sparse_tensors``); what they mean is the architecture's
        :class:`~fsmnet.nets.semantics.Semantics`.  Arrays are copied and frozen.
    symbols
        Input alphabet, in symbol-index order.
    labels
        Output labels, in readout-index order (bool, int or str).
    options
        The compile options and facts worth keeping (JSON values).
    exact
        An exact description of irrational weights (JSON), or ``None`` when the
        float64 tensors are exact as they are.
    name
        Free text, usually the SPEC the network was compiled from.
    """

    __slots__ = ("_arch", "_params", "_symbols", "_labels", "_options", "_exact", "_name",
                 "_semantics", "_cache")

    def __init__(
        self,
        *,
        arch: str,
        params: Mapping[str, np.ndarray | SparseTensor],
        symbols: Sequence[str],
        labels: Sequence[Any],
        options: Mapping[str, Any] | None = None,
        exact: Mapping[str, Any] | None = None,
        name: str = "",
        source: str = "<network>",
    ) -> None:
        self._semantics: Semantics = semantics_for(arch, source)
        # Derived data the semantics compute once (e.g. exact matrices); the
        # network is immutable, so the cache never goes stale.
        self._cache: dict[str, Any] = {}
        frozen: dict[str, np.ndarray | SparseTensor] = {}
        readable: frozenset[str] = getattr(self._semantics, "sparse_tensors", frozenset())
        for key, value in params.items():
            if isinstance(value, SparseTensor):
                if key not in readable:
                    raise NetworkFileError(
                        f"{source}: field '{key}': stored sparse, which {arch} does not "
                        f"read (it reads sparse: {sorted(readable) or 'nothing'})")
                frozen[str(key)] = value  # immutable already
                continue
            arr = np.array(value, copy=True)
            arr.setflags(write=False)
            frozen[str(key)] = arr
        self._arch = arch
        self._params = frozen
        self._symbols = tuple(symbols)
        self._labels = tuple(labels)
        self._options = dict(options or {})
        self._exact = None if exact is None else dict(exact)
        self._name = name
        if not self._symbols:
            raise NetworkFileError(f"{source}: field 'symbols': the alphabet is empty")
        if not self._labels:
            raise NetworkFileError(f"{source}: field 'labels': there are no output labels")
        self._semantics.validate(self._params, len(self._symbols),  # type: ignore[arg-type]
                                 len(self._labels), source)
        if self._exact is not None:
            # A header is the exact truth only if every tensor it describes holds its
            # correctly rounded value bit for bit; otherwise the file is refused here.
            from fsmnet.nets.exact_header import check_exact_header

            check_exact_header(self, source)

    # ----------------------------------------------------------------- fields
    @property
    def arch(self) -> str:
        return self._arch

    @property
    def params(self) -> MutableMapping[str, np.ndarray]:
        """Tensor name -> read-only dense numpy array (a sparse tensor is expanded on
        first access; :attr:`stored` gives the tensors as they are kept)."""
        return _DenseView(self)

    @property
    def stored(self) -> dict[str, np.ndarray | SparseTensor]:
        """Tensor name -> the read-only array or :class:`~fsmnet.nets.sparse.SparseTensor`
        as kept in memory and in the file."""
        return dict(self._params)

    @property
    def stored_bytes(self) -> int:
        """Bytes of the tensors as stored (coordinates and values for sparse ones)."""
        return int(sum(a.nbytes for a in self._params.values()))

    @property
    def symbols(self) -> tuple[str, ...]:
        return self._symbols

    @property
    def labels(self) -> tuple[Any, ...]:
        return self._labels

    @property
    def options(self) -> dict[str, Any]:
        return dict(self._options)

    @property
    def exact(self) -> dict[str, Any] | None:
        return None if self._exact is None else dict(self._exact)

    @property
    def name(self) -> str:
        return self._name

    @property
    def semantics(self) -> Semantics:
        return self._semantics

    def cached(self, key: str, compute: Any) -> Any:
        """``compute()`` once per network and key (used by the semantics)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def hidden_size(self) -> int:
        return self._semantics.hidden_size(self)

    @property
    def n_params(self) -> int:
        """Total number of scalars in all tensors (dense sizes: a sparse tensor's zeros
        count)."""
        return int(sum(a.size for a in self._params.values()))

    def with_options(self, **extra: Any) -> Network:
        """A copy with more entries in :attr:`options`; the read-only tensors are shared."""
        clone = object.__new__(Network)
        for slot in Network.__slots__:
            object.__setattr__(clone, slot, getattr(self, slot))
        clone._options = {**self._options, **extra}
        clone._cache = {}
        return clone

    def with_params(self, **arrays: np.ndarray) -> Network:
        """A copy with some tensors replaced, validated again.

        ``exact`` is dropped: new weights have no known exact description.
        """
        merged: dict[str, np.ndarray | SparseTensor] = dict(self._params)
        merged.update(arrays)
        return Network(arch=self._arch, params=merged, symbols=self._symbols,
                       labels=self._labels, options=self._options, exact=None, name=self._name)

    # ------------------------------------------------------------- running
    def label_trace(self, word: Sequence[int] | np.ndarray, *, exact: bool = False) -> np.ndarray:
        """Readout label index after every prefix of ``word`` (symbol indices),
        the empty prefix included: an int64 array of length ``len(word) + 1``.

        Raises :class:`~fsmnet.errors.NetworkFileError` naming the value for
        anything but indices ``0..len(symbols)-1`` (names go through :meth:`output_of`).
        """
        from fsmnet.automata.words import symbol_indices
        from fsmnet.nets.evaluate import reference_trace

        checked = symbol_indices(word, len(self._symbols), f"<network {self._name}>",
                                 "label_trace", error=NetworkFileError)
        return reference_trace(self, checked, exact=exact)

    def output_of(self, word: Sequence[str] | str, *, exact: bool = False) -> Any:
        """The output label after a word given by symbol names."""
        index = {s: i for i, s in enumerate(self._symbols)}
        try:
            encoded = [index[s] for s in word]
        except KeyError as exc:
            raise NetworkFileError(f"<network {self._name}>: field 'word': symbol not in the "
                                   f"alphabet (value: {exc.args[0]!r})") from None
        return self._labels[int(self.label_trace(encoded, exact=exact)[-1])]

    def to_torch(self) -> Any:
        """Deprecated alias of :func:`fsmnet.to_torch` (``fsmnet.train.convert.to_torch``):
        the architecture's float32 training module loaded with these weights, whose
        labels are this network's float32 reference execution."""
        import warnings

        from fsmnet import plugins

        warnings.warn("Network.to_torch() is deprecated; use fsmnet.to_torch(net)",
                      DeprecationWarning, stacklevel=2)
        return plugins.installed("to_torch")(self)

    # ----------------------------------------------------------------- files
    def header(self) -> dict[str, Any]:
        """The JSON metadata stored in the file header."""
        from fsmnet.version import __version__

        # fsmnet_version is an addition within formats 1 and 2: readers ignore unknown
        # fields, so older fsmnet still reads these files.
        header: dict[str, Any] = {
            "format": FORMAT_NAME,
            "format_version": file_version(self._params),
            "fsmnet_version": __version__,
            "arch": self._arch,
            "name": self._name,
            "symbols": list(self._symbols),
            "labels": list(self._labels),
            "options": self._options,
            "exact": self._exact,
        }
        sparse = encode(self._params)[1]
        if sparse:  # only in version 4, so files without sparse tensors stay as before
            header["sparse"] = sparse
        return header

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write a ``.safetensors`` file with a JSON metadata header.

        Raises :class:`~fsmnet.io.OutputError` for a path it may not write
        (a directory, a missing parent, ...); see :mod:`fsmnet.io`.
        """
        from safetensors.numpy import save

        from fsmnet.io import write_bytes

        tensors = encode(self._params)[0]
        # Serialized in memory, then written by fsmnet.io: atomically to a regular file,
        # streamed to a device or pipe, "-" for standard output (issue 15).
        write_bytes(path, save(tensors, metadata={"fsmnet": json.dumps(self.header())}))

    def __repr__(self) -> str:
        return (f"<Network {self._arch} {self._name!r}: hidden {self.hidden_size}, "
                f"{self.n_params} parameters, {len(self._symbols)} symbols, "
                f"{len(self._labels)} labels>")

    def _repr_svg_(self) -> str | None:
        """The structure picture for Jupyter (None without Graphviz ``dot``)."""
        from fsmnet.automata.render import repr_svg
        from fsmnet.nets.dot import n_nodes, network_to_dot

        return repr_svg(network_to_dot(self), n_nodes(self))

    def _repr_html_(self) -> str:
        """A card for Jupyter: architecture, sizes, tensors and the structure picture."""
        from fsmnet.automata.render import repr_html
        from fsmnet.nets.dot import n_nodes, network_to_dot

        rows = [("architecture", self._arch), ("hidden size", str(self.hidden_size)),
                ("parameters", str(self.n_params)), ("symbols", ", ".join(self._symbols)),
                ("labels", ", ".join(map(str, self._labels))),
                ("tensors", "; ".join(f"{k} {tuple(v.shape)}" for k, v in self._params.items()))]
        return repr_html(repr(self), rows, network_to_dot(self), n_nodes(self))


def load_network(path: str | os.PathLike[str]) -> Network:
    """Load and validate a network file written by :meth:`Network.save`.

    Raises
    ------
    NetworkFileError
        Naming the file, the field and the value, for a missing or corrupted
        file, a foreign or newer format, a bad header, or bad tensors.
    """
    src = os.fspath(path)
    if not os.path.isfile(src):
        if os.path.isdir(src):
            raise NetworkFileError(f"{src}: is a directory, not a network file")
        if os.path.exists(src):
            raise NetworkFileError(f"{src}: not a regular file, so not a network file")
        raise NetworkFileError(f"{src}: no such network file")
    from safetensors import safe_open

    try:
        with safe_open(src, framework="numpy") as handle:
            meta = handle.metadata() or {}
            tensors = {k: handle.get_tensor(k) for k in handle.keys()}
    except Exception as exc:  # safetensors raises its own error types (and OSError)
        raise NetworkFileError(f"{src}: not a readable safetensors file ({exc})") from None
    if "fsmnet" not in meta:
        raise NetworkFileError(f"{src}: field 'metadata.fsmnet': missing; not an fsmnet network")
    try:
        header = json.loads(meta["fsmnet"])
    except json.JSONDecodeError as exc:
        raise NetworkFileError(f"{src}: field 'metadata.fsmnet': invalid JSON ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        shown = header.get("format") if isinstance(header, dict) else header
        raise NetworkFileError(f"{src}: field 'format': not an fsmnet network "
                               f"(value: {shown!r})")
    version = header.get("format_version")
    if version not in READ_VERSIONS or isinstance(version, bool):
        raise NetworkFileError(f"{src}: field 'format_version': unsupported "
                               f"(value: {version!r}, this fsmnet reads "
                               f"{', '.join(map(str, READ_VERSIONS))})")
    for field, kind in (("arch", str), ("name", str), ("symbols", list), ("labels", list),
                        ("options", dict)):
        if not isinstance(header.get(field), kind):
            raise NetworkFileError(f"{src}: field '{field}': missing or of the wrong type "
                                   f"(value: {header.get(field)!r})")
    written_by = header.get("fsmnet_version")  # absent in files from before issue 15
    if written_by is not None and not isinstance(written_by, str):
        raise NetworkFileError(f"{src}: field 'fsmnet_version': must be a string "
                               f"(value: {written_by!r})")
    exact = header.get("exact")
    if exact is not None and not isinstance(exact, dict):
        raise NetworkFileError(f"{src}: field 'exact': must be an object or null "
                               f"(value: {exact!r})")
    for field in ("symbols", "labels"):
        for item in header[field]:
            if not isinstance(item, (str, int, bool)) or (field == "symbols"
                                                          and not isinstance(item, str)):
                raise NetworkFileError(f"{src}: field '{field}': bad entry (value: {item!r})")
    if "sparse" in header and version < 4:
        raise NetworkFileError(f"{src}: field 'format_version': field 'sparse' needs "
                               f"version 4 (value: {version!r})")
    params = decode(tensors, header.get("sparse", {}), src)
    if version < file_version(params):
        need = file_version(params)
        tensor = "unit_component" if need == 3 else "link0"
        raise NetworkFileError(f"{src}: field 'format_version': tensor '{tensor}' "
                               f"needs version {need} (value: {version!r})")
    return Network(arch=header["arch"], params=params, symbols=header["symbols"],
                   labels=header["labels"], options=header["options"], exact=exact,
                   name=header["name"], source=src)
