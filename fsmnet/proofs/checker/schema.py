"""The key schema of certificates, checked before any mathematics.

Why: every module of the checker reads the fields it needs and nothing else.
Without a schema a certificate could carry keys that no module reads and that
a reader takes for checked facts (a second ``automaton`` inside
``invariant``, a ``phi`` in a chart-box certificate, a misspelt key), keys a
JSON parser resolves silently (a repeated key: the last one wins), and
values of the wrong kind that fail deep inside an argument.  So a certificate
is first parsed strictly (:func:`parse_certificate`: duplicate keys,
``NaN``/``Infinity`` and huge integers refused) and then checked against
:data:`SCHEMA`, which lists every key of every object of every method, once,
with the kind of value it holds; anything else is refused with the path of
the field.  The schema is a table that :func:`validate` loops over, not code
per method: a new method or field is a new entry here and nothing else.

Nodes of the table:

* a leaf kind (a string): ``"num"`` a rational written as a string (its
  syntax and size are checked where it is read, :func:`core._parse`),
  ``"nums"`` such a string or nested lists of them, ``"int"`` a JSON integer,
  ``"str"``, ``"label"`` (a string, integer or boolean: a network label or
  automaton output), ``"real"`` (a JSON number, informational only);
* ``("list", node)``; ``("map", node)``: an object whose keys are data
  (cone per automaton state, power of ζ) and whose values are ``node``;
  ``("int-map", node)``: the same with canonical decimal integer keys;
  ``("or-null", node)``;
* :class:`Rec`: an object with these required and optional keys;
* :class:`Tagged`: an object whose field ``tag`` picks its record (the
  method, a box domain, a model type, a unit kind).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .core import MAX_DIGITS, CertificateError


@dataclass(frozen=True)
class Rec:
    """An object: ``req`` keys must be there, ``opt`` keys may be; no others."""

    req: Mapping[str, Any]
    opt: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Tagged:
    """An object whose ``tag`` field (a string) selects its record in ``table``."""

    tag: str
    table: Mapping[str, Rec | Tagged]


NUM, NUMS, INT, STR, LABEL, REAL = "num", "nums", "int", "str", "label", "real"
VEC, MAT, MATS = ("list", NUM), ("list", ("list", NUM)), ("list", ("list", ("list", NUM)))
INTS, INT_TABLE = ("list", INT), ("list", ("list", INT))
WORD = ("list", STR)

CLAIM = "for every word w: label(readout(h_w)) == output(delta(q0, w))"
BELIEF_CLAIM = ("for every word w: P(w) > 0 implies h_w / ||h_w||_1 = belief_w and the "
                "readout is the first most likely state; P(w) = 0 implies h_w = 0")
# The statement each method proves, in words: a certificate may not restate it otherwise.
CLAIMS = {"exact-product": CLAIM, "cone-invariant": CLAIM, "count-abstraction": CLAIM,
          "channel-product": CLAIM,
          "box-invariant": CLAIM, "reduced-invariant": CLAIM, "zonotope-invariant": CLAIM,
          "cascade-components": CLAIM, "float32-product": CLAIM,
          "belief-tracking": BELIEF_CLAIM, "count-dominance": CLAIM}

# What a float32 claim covers, by rounding model: the certificate states it in ``covers``
# (checked equal), so a reader of the file sees which executors the proof is about.
COVERS = {
    "float32-step": ("float32, any summation order: the float32 reference step "
                     "(docs/formats.md) and every executor that sums each dot product in "
                     "any order, with or without FMA; and exact arithmetic"),
    "float32-select": ("float32, any evaluation order: max and min select among float32 "
                       "values, so every float32 run is the exact run"),
    "float32-reference": ("the float32 reference step (docs/formats.md): fsmnet run "
                          "--float32 and the torch modules' labels on a CPU; not exact "
                          "arithmetic, not other orders"),
}

ELEMENT = ("int-map", NUM)  # Σ_k q_k ζ^k as {k: q_k}
UNIT = Tagged("kind", {
    "scalar": Rec({"level": INT, "size": INT, "r": MAT, "s": MAT, "x0": VEC}),
    "matrix": Rec({"level": INT, "size": INT, "R": ("list", ("list", MAT)),
                   "s": MATS, "x0": VEC}),
})
SPARSE_MAT = Rec({"rows": INTS, "cols": INTS, "values": VEC})
SPARSE_VEC = Rec({"index": INTS, "values": VEC})
MODEL = Tagged("type", {
    "linear": Rec({"matrices": MATS, "h0": VEC, "readout": MAT}),
    "linear-sparse": Rec({"dim": INT, "matrices": ("list", SPARSE_MAT),
                          "h0": SPARSE_VEC, "readout": SPARSE_MAT}),
    "minmax-dense": Rec({"R": MATS, "s": MAT, "x0": VEC, "readout": MAT}),
    "minmax-sparse": Rec({"dim": INT, "R": ("list", SPARSE_MAT), "s": ("list", SPARSE_VEC),
                          "x0": SPARSE_VEC, "readout": SPARSE_MAT}),
    "minmax-cascade": Rec({"units": ("list", UNIT), "readout": INTS},
                          {"links": ("list", INT_TABLE), "components": INTS,
                           "joins": ("list", INT_TABLE)}),
    "bilinear-block": Rec({"blocks": ("list", Rec({"matrices": MATS, "h0": VEC})),
                           "readout": ("list", NUMS)}),
    "diagonal-channels": Rec({"field_order": INT, "multipliers": ("list", ("list", ELEMENT)),
                              "h0": ("list", ELEMENT),
                              "readout": ("list", ("list", ELEMENT))}),
})
AUTOMATON = Rec({"symbols": WORD, "delta": INT_TABLE, "initial": INT,
                 "outputs": ("list", LABEL)})
NETWORK = Rec({"arch": STR, "labels": ("list", LABEL), "model": MODEL},
              {"file": ("or-null", STR), "sha256": ("or-null", STR)})
COMMON = {"format": STR, "format_version": INT, "claim": STR, "method": STR,
          "automaton": AUTOMATON, "network": NETWORK}
PFSA = Rec({"name": ("or-null", STR), "states": WORD, "symbols": WORD, "kernel": MATS,
            "reveals": INT_TABLE, "initial": INT})
BOX = Rec({"state": INT, "lo": VEC, "hi": VEC})
MODEL32 = Rec({"matrices": MATS, "readout": MAT})
BOXES = {"rounding": STR, "initial_box": INT, "successors": INT_TABLE,
         "boxes": ("list", BOX)}

# The fields proper to each invariant (besides the common ones), required and optional.
SLICE = ({**BOXES, "phi": VEC, "multipliers": ("list", Rec({"steps": MAT, "readout": VEC}))},
         {"inflation": REAL, "model32": MODEL32, "covers": STR})
CHART = ({**BOXES, "boxes": ("list", Rec(BOX.req, {"sign": INT})), "basis": MAT,
          "basis_inverse": MAT, "pivot": INT},
         {"inflation": REAL, "model32": MODEL32, "covers": STR, "stride": INT})
ZONOTOPE = ({"rounding": STR, "phi": VEC, "pivot": INT, "extra": MAT, "coefficients": MATS,
             "initial_zonotope": INT, "successors": INT_TABLE,
             "zonotopes": ("list", Rec({"state": INT, "center": VEC, "scale": VEC}))},
            {"model32": MODEL32, "covers": STR})


def _inner(fields: tuple[dict[str, Any], dict[str, Any]]) -> Rec:
    """The ``invariant`` of a reduced-invariant certificate: the inner method's own
    fields and nothing that the certificate states at its top level, except
    ``domain`` and ``rounding``, which may be restated (equal, checked in
    :func:`.reduction.check_reduced`)."""
    req, opt = fields
    return Rec({k: v for k, v in req.items() if k != "rounding"},
               {**opt, "rounding": STR, "domain": STR})


# The closed exact product of the reduced model: the fields of an exact-product
# certificate beyond the common ones.
PRODUCT: tuple[dict[str, Any], dict[str, Any]] = (
    {"states": ("list", NUMS), "pairs": INT_TABLE, "transitions": INT_TABLE}, {})
INVARIANT = Tagged("method", {
    "box-invariant": Tagged("domain", {"slice-box": _inner(SLICE), "chart-box": _inner(CHART)}),
    "zonotope-invariant": _inner(ZONOTOPE),
    "exact-product": _inner(PRODUCT),
})
# Which fields of the top level of a reduced-invariant certificate an ``invariant``
# may restate; every other key of ``invariant`` is the inner method's own.
RESTATED = ("domain", "rounding")
REDUCTION = Rec({"reachable_basis": MAT, "reachable_pivots": INTS, "observable_basis": MAT,
                 "observable_pivots": INTS, "model": MODEL})
COMPONENT = Rec({"states": ("list", NUMS), "pairs": INT_TABLE, "transitions": INT_TABLE})
CHOICE = ("list", ("list", LABEL))  # [["exact", n] | ["tail", r] per letter]
COUNT_TYPE = Rec({"choice": CHOICE, "label": INT,
                  "rivals": ("list", Rec({"label": INT, "degrees": ("or-null", INTS)}))})
LETTER = Rec({"start": INT, "period": INT, "base": NUM, "exponents": ("list", ("or-null", INT))})
# count-dominance: per letter (S, P); per (count type, rival) the assignment of every
# negative channel group to its dominating host and each host's bound per tail letter.
DOMINANCE_RIVAL = Rec({"label": INT, "assignment": ("int-map", INT),
                       "bounds": ("int-map", INTS)})
DOMINANCE_TYPE = Rec({"choice": CHOICE, "label": INT, "rivals": ("list", DOMINANCE_RIVAL)})
DECAY = {"format": STR, "format_version": INT, "method": STR, "kind": STR, "theorem": STR,
         "pfsa": PFSA, "prefix": WORD, "period": WORD, "rate": NUM}
WITNESS = {"format": STR, "format_version": INT, "method": STR, "kind": STR, "arch": STR,
           "theorem": STR, "automaton": AUTOMATON, "stride": ("or-null", INT)}

SCHEMA = Tagged("method", {
    "exact-product": Rec({**COMMON, "states": ("list", NUMS), "pairs": INT_TABLE,
                          "transitions": INT_TABLE}),
    "cone-invariant": Rec({**COMMON, "cones": ("int-map", MAT), "initial_multipliers": VEC,
                           "inclusions": ("list", Rec({"state": INT, "symbol": INT,
                                                       "generator": INT,
                                                       "multipliers": VEC}))}),
    "channel-product": Rec({**COMMON, "states": ("list", ("list", ELEMENT)),
                            "pairs": INT_TABLE, "transitions": INT_TABLE}),
    "count-abstraction": Rec({**COMMON, "letters": ("list", LETTER),
                              "types": ("list", COUNT_TYPE)}),
    "count-dominance": Rec({**COMMON, "letters": ("list", Rec({"start": INT, "period": INT})),
                            "types": ("list", DOMINANCE_TYPE)}),
    "box-invariant": Tagged("domain", {
        "slice-box": Rec({**COMMON, **SLICE[0]}, SLICE[1]),
        "chart-box": Rec({**COMMON, **CHART[0]}, CHART[1]),
        "minmax-box": Rec({**COMMON, **BOXES}, {"covers": STR}),
    }),
    "zonotope-invariant": Rec({**COMMON, "domain": STR, **ZONOTOPE[0]}, ZONOTOPE[1]),
    "reduced-invariant": Rec({**COMMON, "domain": STR, "rounding": STR,
                              "reduction": REDUCTION, "invariant": INVARIANT}),
    "cascade-components": Rec({**COMMON, "components": ("list", COMPONENT)}),
    "float32-product": Rec({**COMMON, "rounding": STR, "covers": STR,
                            "states": ("list", WORD),  # float32 bit patterns, 8 hex digits
                            "pairs": INT_TABLE, "transitions": INT_TABLE}),
    "belief-tracking": Rec({"format": STR, "format_version": INT, "method": STR,
                            "claim": STR, "pfsa": PFSA,
                            "network": Rec({"arch": STR, "labels": ("list", LABEL),
                                            "h0": VEC, "matrices": MATS, "readout": MAT},
                                           {"file": ("or-null", STR),
                                            "sha256": ("or-null", STR)})}),
    "belief-decay": Tagged("kind", {
        "joint-range": Rec({**DECAY, "blocks": WORD, "additive": ("map", ("list", WORD)),
                            "periods": ("map", INT)}),
        "marginal-adversarial": Rec({**DECAY, "p": NUM, "true_marginal_min": NUM,
                                     "periods": ("map", Rec({"subnormal": INT,
                                                             "zero": INT}))}),
    }),
    "witness": Tagged("kind", {
        "equal-counts": Rec({**WITNESS, "words": Rec({"first": WORD, "second": WORD})}),
        "unsettled-powers": Rec({**WITNESS, "words": Rec({"p": WORD, "u": WORD,
                                                          "s": WORD})}),
    }),
})


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_nums(x: Any) -> bool:
    """A rational string, or nested lists of them (any depth; no recursion)."""
    todo = [x]
    while todo:
        y = todo.pop()
        if isinstance(y, list):
            todo.extend(y)
        elif not isinstance(y, str):
            return False
    return True


LEAVES = {
    NUM: lambda x: isinstance(x, str),
    NUMS: _is_nums,
    INT: _is_int,
    STR: lambda x: isinstance(x, str),
    LABEL: lambda x: isinstance(x, (str, bool)) or _is_int(x),
    REAL: lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
}
# Canonical decimal keys only: "0" and "00" would name one state (or power) twice.
_INT_KEY = re.compile(r"0|-?[1-9][0-9]{0,8}", re.ASCII)


def _show(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else f"{text[:50]}... ({len(text)} characters)"


def _fail(path: str, what: str, value: Any) -> CertificateError:
    return CertificateError(f"{path or 'the certificate'}: {what}, got {_show(value)}")


def _record(value: Any, rec: Rec, path: str) -> None:
    if not isinstance(value, dict):
        raise _fail(path, "expected an object", value)
    for key in value:
        if key not in rec.req and key not in rec.opt:
            raise CertificateError(f"{path or 'the certificate'}: unknown or misplaced key "
                                   f"{key!r} (allowed: {', '.join(sorted({*rec.req, *rec.opt}))})")
    for key, node in rec.req.items():
        if key not in value:
            raise CertificateError(f"{path or 'the certificate'}: missing key {key!r}")
        validate(value[key], node, f"{path}.{key}" if path else key)
    for key, node in rec.opt.items():
        if key in value:
            validate(value[key], node, f"{path}.{key}" if path else key)


def _tagged(value: Any, node: Tagged, path: str, tags: tuple[str, ...] = ()) -> None:
    """Pick the record by the tag (tags may nest: method, then domain); the record
    also holds every tag read on the way."""
    if not isinstance(value, dict):
        raise _fail(path, "expected an object", value)
    tag = value.get(node.tag)
    where = f"{path}.{node.tag}" if path else node.tag
    if not isinstance(tag, str) or tag not in node.table:
        raise CertificateError(f"{where}: unsupported {node.tag} {_show(tag)} (known: "
                               f"{', '.join(sorted(node.table))})")
    chosen, tags = node.table[tag], (*tags, node.tag)
    if isinstance(chosen, Tagged):
        _tagged(value, chosen, path, tags)
    else:
        _record(value, Rec({**dict.fromkeys(tags, STR), **chosen.req}, chosen.opt), path)


def _container(value: Any, node: tuple[str, Any], path: str) -> None:
    kind, inner = node
    if kind == "or-null":
        if value is not None:
            validate(value, inner, path)
        return
    if kind == "list":
        if not isinstance(value, list):
            raise _fail(path, "expected a list", value)
        items: Any = enumerate(value)
        fmt = "{}[{}]"
    else:
        if not isinstance(value, dict):
            raise _fail(path, "expected an object", value)
        bad = next((k for k in value if kind == "int-map" and not (
            isinstance(k, str) and _INT_KEY.fullmatch(k))), None)
        if bad is not None:
            raise CertificateError(f"{path}: key {_show(bad)} is not a decimal integer "
                                   "(no sign +, no leading zeros)")
        items, fmt = value.items(), "{}[{!r}]"
    leaf = LEAVES.get(inner) if isinstance(inner, str) else None
    for key, item in items:
        if leaf is None:
            validate(item, inner, fmt.format(path, key))
        elif not leaf(item):
            raise _fail(fmt.format(path, key), f"expected a {inner}", item)


def validate(value: Any, node: Any, path: str = "") -> None:
    """Raise CertificateError unless ``value`` has the shape ``node`` (see the module
    docstring); ``path`` names the field in messages."""
    if isinstance(node, str):
        if not LEAVES[node](value):
            raise _fail(path, f"expected a {node}", value)
    elif isinstance(node, Rec):
        _record(value, node, path)
    elif isinstance(node, Tagged):
        _tagged(value, node, path)
    else:
        _container(value, node, path)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise CertificateError(f"duplicate key {key!r} in one object (values "
                                   f"{_show(out[key])} and {_show(value)}; a JSON parser "
                                   "would keep only the last)")
        out[key] = value
    return out


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise CertificateError(f"a JSON integer of {len(text)} characters (at most "
                               f"{MAX_DIGITS} digits): {_show(text)}")
    return int(text)


def _no_constant(text: str) -> Any:
    raise CertificateError(f"{text} is not JSON (and no certificate number)")


def parse_certificate(text: str | bytes) -> Any:
    """JSON text -> Python objects, refusing duplicate keys, ``NaN``/``Infinity`` and
    integers of more than MAX_DIGITS digits (CertificateError); text that is not JSON
    raises json.JSONDecodeError."""
    return json.loads(text, object_pairs_hook=_unique_keys, parse_int=_bounded_int,
                      parse_constant=_no_constant)
