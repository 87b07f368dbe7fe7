"""The "certified" column of the tables: ``fsmnet certify`` on each trained network,
in exact arithmetic of the file's tensors and for the float32 reference step, and
the short codes and word lists the tables print."""

import os
from collections.abc import Sequence
from typing import Any

NETS = os.path.join(os.path.dirname(__file__), "results", "nets")


def file_name(name: str) -> str:
    """``name`` with every character outside letters, digits and ``._,=-`` made ``_``."""
    return "".join(c if c.isalnum() or c in "._,=-" else "_" for c in name)


def save_net(result: Any, name: str, folder: str | None = None) -> tuple[Any, str] | None:
    """The trained module as an fsmnet network file ``folder/NAME.safetensors``
    (default ``results/nets/``): the network and its path, or None for a module
    with no network form."""
    from fsmnet.errors import FsmnetError
    from fsmnet.train.convert import to_network

    try:
        net = to_network(result.module, result.automaton.symbols, result.automaton.labels,
                         name=name)
    except FsmnetError:
        return None
    folder = folder or NETS
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, file_name(name) + ".safetensors")
    net.save(path)
    return net, path


def certify_cell(result: Any, name: str, folder: str | None = None) -> dict[str, Any]:
    """``fsmnet certify`` on the trained network, twice: in exact arithmetic of the
    file's tensors, and for the float32 reference step (``--float32``, under
    ``"float32"``). Each gives the verdict, method, the confirmed word (refuted) or
    the proved length L (unknown), and the theorem that rules the cell out where one
    applies. The network is saved first (in ``folder``, default ``results/nets/``),
    so ``fsmnet certify results/nets/NAME.safetensors SPEC [--float32]`` repeats the
    verdicts. Modules with no network form get verdict None."""
    saved = save_net(result, name, folder)
    if saved is None:
        return {"verdict": None, "why": "no network form"}
    net, path = saved
    out = _certified(result.automaton, net, path, float32=False)
    out["network"] = os.path.relpath(path)
    out["float32"] = _certified(result.automaton, net, path, float32=True)
    return out


def _certified(automaton: Any, net: Any, path: str, *, float32: bool) -> dict[str, Any]:
    """One certify run, as the JSON record of a table cell."""
    from fsmnet.proofs.abstract.certify import certify

    res = certify(automaton, net, network_path=path, float32=float32)
    out: dict[str, Any] = {"verdict": res.verdict, "method": res.method,
                           "proved_length": res.proved_length, "domain": res.domain,
                           "seconds": round(res.seconds, 2)}
    if res.counterexample is not None:
        out["word"] = [str(x) for x in res.counterexample.word]
    if res.details.get("theorem"):
        out["theorem"] = res.details["theorem"]
    return out


def run_length(word: Sequence[str]) -> str:
    """'1^220 0' for 220 ones then a zero: words found by long repetitions stay short."""
    parts: list[str] = []
    i = 0
    while i < len(word):
        j = i
        while j < len(word) and word[j] == word[i]:
            j += 1
        sym = word[i].replace(" ", "")  # "(1 2)" -> "(12)": spaces separate symbols
        parts.append(sym if j - i == 1 else f"{sym}^{j - i}")
        i = j
    return " ".join(parts)


def _code(c: dict[str, Any] | None) -> str:
    if not c or c["verdict"] is None:
        return "—"
    if c["verdict"] == "proved":
        return "P"
    if c["verdict"] == "refuted":
        return f"R{len(c['word'])}"
    return f"U{c['proved_length']}"


def certified_code(cell: dict[str, Any]) -> str:
    """Short form of one seed's verdicts: P (proved), R n (refuted, word length n),
    U L (unknown, proved for every length ≤ L), — (no network form); the exact
    verdict, then the float32 one after a colon where the record has it (``U10:P``; not
    a bar, which would split a markdown table cell)."""
    c = cell.get("certified")
    code = _code(c)
    if c and c.get("float32"):
        code += ":" + _code(c["float32"])
    return code


def certified_summary(cells: Sequence[dict[str, Any]]) -> str:
    """The 'certified' entry of a table cell: one code per seed, in seed order."""
    return "/".join(certified_code(c) for c in cells) if cells else "—"


def _describe(cert: dict[str, Any], width: int) -> str:
    if cert["verdict"] == "refuted":
        text = run_length(cert["word"])
        text = text if len(text) <= width else text[:width] + "…"
        what = f"refuted by `{text}` (length {len(cert['word'])}, {cert['method']})"
    elif cert["verdict"] == "unknown":
        what = f"unknown, every word of length ≤ {cert['proved_length']} proved"
    else:
        what = f"proved for every length ({cert['method']}, {cert['domain']})"
    if cert.get("theorem"):
        what += f"; {cert['theorem']}"
    return what


def certified_details(cells: Sequence[dict[str, Any]], width: int = 48) -> str:
    """One markdown line per network that has a verdict: seed, the exact verdict
    (the word, run-length encoded and cut at ``width`` characters, or L) and the
    float32 one where it differs."""
    lines = []
    for c in cells:
        cert = c.get("certified")
        if not cert or cert["verdict"] is None:
            continue
        label = f"{c['spec']} {c.get('row', c['arch'])} seed {c['seed']}"
        line = f"- {label}: {_describe(cert, width)}"
        f32 = cert.get("float32")
        if f32:
            same = _code(f32) == _code(cert)
            line += "; float32: " + ("the same" if same else _describe(f32, width))
        lines.append(line)
    return "\n".join(lines)


def verdict(spec: str, arch: str) -> str:
    """fsmnet's proved verdict for the cell: ✓ H=… (construction proved), ✗ (theorem), ?."""
    from fsmnet import expressivity

    (res,) = expressivity(spec, [arch])
    if res.verdict == "possible":
        size = res.size or {}
        return f"✓ H={size['hidden']}" if "hidden" in size else "✓"
    return {"impossible": "✗", "unknown": "?"}[res.verdict]
