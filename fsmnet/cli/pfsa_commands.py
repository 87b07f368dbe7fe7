"""PFSA-SR specs on the command line: ``info``, ``compile``, ``verify``, ``run``,
``expressivity``.

A PFSA-SR (a spec with ``kind: pfsa-sr`` or a family string ``pcups:...``,
docs/pfsa.md) is a different kind of model from an automaton: its network
tracks a belief, its proof is a belief proof, its expressivity rows are
theorems J and M.  So each of these commands has a second handler here, listed
in :data:`HANDLERS`, and the command installs :func:`by_spec_kind` of its own
handler: the one place that tells the two kinds apart, so that the automaton
code paths need not.  Which architectures compile a PFSA-SR is the registry's
``belief_construction`` field.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from fsmnet.errors import FsmnetError

__all__ = ["HANDLERS", "by_spec_kind", "is_pfsa", "pfsa_compile", "pfsa_expressivity",
           "pfsa_info", "pfsa_run", "pfsa_verify"]

Handler = Callable[[argparse.Namespace], int]

_RUN_CHECK = 2_000


def is_pfsa(spec: Any) -> bool:
    """True when SPEC is a PFSA-SR (spec file with ``kind: pfsa-sr``, or ``pcups:...``)."""
    from fsmnet.automata.pfsa_spec import is_pfsa_spec

    return is_pfsa_spec(spec)


def _emit(args: argparse.Namespace, data: dict[str, Any], lines: list[str]) -> None:
    if getattr(args, "json", False):
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print("\n".join(lines))


def pfsa_info(args: argparse.Namespace) -> int:
    """``fsmnet info PFSA``: sizes, which symbols are probabilistic and which reveal."""
    from fsmnet.automata.pfsa_spec import load_pfsa

    m = load_pfsa(args.spec)
    prob = [s for a, s in enumerate(m.symbols) if any(max(r) < 1 for r in m.kernel[a])]
    shown = [s for a, s in enumerate(m.symbols) if not m.reveals_nothing(a)]
    data = {"name": m.name, "kind": "pfsa-sr", "states": m.n_states,
            "alphabet": list(m.symbols), "deterministic": m.is_deterministic,
            "probabilistic_symbols": prob, "revealing_symbols": shown,
            "initial_state": m.states[m.initial]}
    _emit(args, data, [
        m.name or args.spec,
        "  kind            PFSA-SR (probabilistic automaton with state reveals)",
        f"  states          {m.n_states}",
        f"  alphabet        {m.n_symbols} symbols: {', '.join(m.symbols[:8])}"
        + (", ..." if m.n_symbols > 8 else ""),
        f"  probabilistic   {len(prob)} symbols" + (f" ({', '.join(prob[:6])})" if prob else ""),
        f"  reveals         {len(shown)} symbols reveal part of the state",
        f"  belief network  fsmnet compile {args.spec} --arch {_belief_arch()} "
        "-o NET.safetensors",
    ])
    return 0


def _belief_arch() -> str:
    """The architecture a PFSA-SR compiles to when none is named (the registry's first)."""
    from fsmnet import archs

    return archs.belief_ids()[0]


def _compile(pfsa: Any, arch: str | None, command: str) -> Any:
    """The belief network of ``pfsa`` for ``arch`` (default :func:`_belief_arch`)."""
    from fsmnet import archs

    return archs.resolve(archs.belief_construction(arch or _belief_arch(), context=command))(
        pfsa)


def _require_arch(arch: str | None, command: str) -> None:
    """Refuse an architecture without a belief construction before any work."""
    from fsmnet import archs

    if arch is not None:
        archs.belief_construction(arch, context=command)


def _save(net: Any, path: str) -> None:
    from fsmnet.io import output_path

    with output_path(path) as tmp:  # atomic: never a half-written network file
        net.save(tmp)


def pfsa_compile(args: argparse.Namespace) -> int:
    """``fsmnet compile PFSA --arch bilinear-full -o NET``: the belief network."""
    from fsmnet.automata.pfsa_spec import load_pfsa

    _require_arch(args.arch, "compile")
    if getattr(args, "option", None):
        raise FsmnetError("compile: the PFSA-SR construction takes no --option")
    net = _compile(load_pfsa(args.spec), args.arch, "compile")
    _save(net, args.output)
    _emit(args, {"arch": net.arch, "name": net.name, "output": args.output,
                 "hidden_size": net.hidden_size, "parameters": net.n_params,
                 "options": net.options},
          [f"{args.output}: {net.arch} belief network for {net.name or args.spec}",
           f"  hidden size {net.hidden_size} (one entry per state), {net.n_params} parameters",
           f"  exact weights {net.options['exact_weights']}; readout: most likely state"])
    return 0


def pfsa_verify(args: argparse.Namespace) -> int:
    """``fsmnet verify PFSA NET``: prove the network tracks the exact belief."""
    from fsmnet.automata.pfsa_spec import load_pfsa
    from fsmnet.nets import load_network
    from fsmnet.proofs.pfsa_proof import belief_certificate, prove_belief, write_certificate

    m, net = load_pfsa(args.spec), load_network(args.net)
    proof = prove_belief(m, net)
    written = None
    if proof.verdict == "proved" and getattr(args, "certificate", None):
        write_certificate(belief_certificate(m, net, network_path=args.net), args.certificate)
        written = args.certificate
    lines = [f"{proof.verdict} ({proof.method}): {proof.reason}"]
    if proof.counterexample is not None:
        c = proof.counterexample
        lines += [f"counterexample: {' '.join(c['word']) or '(empty word)'}",
                  f"  belief {c['expected']}, network {c['got']}"]
    if written:
        lines.append(f"certificate written to {written}")
    _emit(args, {"verdict": proof.verdict, "method": proof.method, "reason": proof.reason,
                 "counterexample": proof.counterexample, "certificate": written}, lines)
    return {"proved": 0, "refuted": 1}.get(proof.verdict, 3)


def pfsa_run(args: argparse.Namespace) -> int:
    """``fsmnet run PFSA``: the belief network on a sampled word of positive probability.

    The word is sampled in Python (a hidden run, reveals it satisfies), so this
    is for lengths up to about 10^7.  The network runs on the scan engine; its
    readout is compared with the first most likely state of the exact belief on
    the first 2000 positions (exact rationals), and the final state is checked
    to be finite and non-zero (no underflow: the network renormalizes).
    """
    import numpy as np

    from fsmnet.automata.pfsa_spec import load_pfsa
    from fsmnet.gpu.engine import evaluate
    from fsmnet.nets import load_network

    _require_arch(getattr(args, "arch", None), "run")
    if args.length > 10**7:
        raise FsmnetError("run: a PFSA-SR word is sampled in Python; use --length <= 1e7 "
                          "(bench/pfsa_hybrid.py runs the network 10^9 steps)")
    m = load_pfsa(args.spec)
    net = (load_network(args.net) if getattr(args, "net", None)
           else _compile(m, getattr(args, "arch", None), "run"))
    word = np.array(m.sample_word(args.length, seed=args.seed), dtype=np.int64)
    begin = time.perf_counter()
    res = evaluate(net, word, backend=args.backend, path="direct")
    seconds = time.perf_counter() - begin
    assert res.outputs is not None  # outputs="all"
    b = m.initial_belief()
    agree = 0
    check = min(_RUN_CHECK, len(word))
    for t in range(check):
        b = m.update(b, int(word[t]))
        agree += int(net.labels[int(res.outputs[t])] == m.states[b.index(max(b))])
    state = np.asarray(res.state, dtype=np.float64)
    healthy = bool(np.all(np.isfinite(state)) and np.any(state != 0))
    accuracy = agree / check if check else None
    _emit(args, {"length": len(word), "seed": args.seed, "backend": res.backend,
                 "accuracy_checked_prefix": accuracy, "checked_positions": check,
                 "final_state_ok": healthy, "seconds": seconds},
          [f"length {len(word):,}  backend {res.backend} ({res.path})  "
           f"most-likely-state accuracy {accuracy:.6f} on the first {check} positions "
           f"(exact belief)  final state {'finite, non-zero' if healthy else 'UNDERFLOWED'}  "
           f"{seconds:.3f} s"])
    return 0 if healthy and accuracy == 1.0 else 1


def pfsa_expressivity(args: argparse.Namespace) -> int:
    """``fsmnet expressivity PFSA``: theorems J and M with their checked witnesses."""
    from fsmnet.automata.pfsa_spec import load_pfsa
    from fsmnet.decide.belief_decay import pfsa_expressivity as rows_for

    if getattr(args, "arch", None):
        raise FsmnetError("expressivity: --arch does not apply to a PFSA-SR spec (its rows "
                          "are the belief representations of docs/theory.md)")
    rows = rows_for(load_pfsa(args.spec))
    out_dir = getattr(args, "witness_dir", None)
    if out_dir:
        from fsmnet.io import make_dir, write_text

        make_dir(out_dir)
        for r in rows:
            if r.witness is not None:
                target = os.path.join(out_dir, f"theorem-{r.witness['theorem']}.json")
                write_text(target, json.dumps(r.witness, indent=1))
    width = max(len(r.arch) for r in rows)
    _emit(args, {"results": [{"arch": r.arch, "verdict": r.verdict, "reason": r.reason,
                              "witness": r.witness} for r in rows]},
          [f"{r.arch:<{width}}  {r.verdict:<10}  {r.reason}" for r in rows])
    return 0


# The handler of a PFSA-SR spec for each command that takes one.
HANDLERS: dict[str, Handler] = {
    "info": pfsa_info,
    "compile": pfsa_compile,
    "verify": pfsa_verify,
    "run": pfsa_run,
    "expressivity": pfsa_expressivity,
}


def by_spec_kind(command: str, handler: Handler) -> Handler:
    """The handler a command installs: ``handler`` for an automaton spec, the PFSA-SR
    handler of ``command`` (:data:`HANDLERS`) for a PFSA-SR spec."""
    for_pfsa = HANDLERS[command]

    def dispatch(args: argparse.Namespace) -> int:
        return (for_pfsa if is_pfsa(args.spec) else handler)(args)

    return dispatch
