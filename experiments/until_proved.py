"""The "train until proved" table (issue 29): for each automaton (row) and each trainable
architecture that fsmnet proves able to express it (column), how many seeds end proved
by ``fsmnet train --until-proved`` (:func:`fsmnet.train.until_proved.train_until_proved`),
their CPU minutes and rounds, and for every seed that does not end proved its measured
reason (the last round's verdict, method, claim, proved length or counterexample
length) or the theorem that rules the exact claim out (Theorem G, docs/theory.md §5).

The columns of a row are decided here, not written down: ``fsmnet.expressivity`` of the
row's automaton for each registry class; ``deltanet-neg`` (DeltaProduct with one
reflection per letter, β ∈ [0, 2]) counts as possible where fsmnet's deltaproduct
construction needs n_h = 1.  Each cell trains at a size read off that construction
(hidden = max(4, H + 2), made even for r2; deltaproduct's n_h and block's number of
blocks the construction's; cp's rank at least |Σ|·states, what its state snap needs;
minmax-dense trained with the straight-through gradient, ``relax`` = 0.2).

Resumable: every (row, column, seed) is one JSON file under ``--out`` (default
``experiments/results/until_proved/``), written when the seed ends and skipped when it
is there with the same settings (``--force`` reruns).  Each seed runs in its own
process with a hard CPU limit (1.5 × ``--cpu-minutes`` + 1 min, ``RLIMIT_CPU``), so a
certification that overruns the budget is stopped and recorded as such; its rounds so
far are kept (the child rewrites a partial file after every round).  A line per round
is logged to stderr.  The wall-time bound is printed first (``--estimate-only`` stops
there).

    python experiments/until_proved.py --jobs 2              # the full table: 3 seeds, 10 CPU-min
    python experiments/until_proved.py --rows "parity,flip-flop,mod 3" --seeds 1 \\
        --cpu-minutes 2 --rounds 30 --jobs 2 --out experiments/results/until_proved/reduced
    python experiments/until_proved.py --table-only          # the table from the files there

The table goes to stdout and to ``OUT/table.md``; the settings, the machine (CPU,
cores, versions, load: experiments/provenance.py) and the date are in every cell's file.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "results", "until_proved")

ROWS = [("parity", "parity"), ("mod 3", "modcount:3"), ("mod 5", "modcount:5"),
        ("flip-flop", "flipflop"), ("latch 4", "latch:4"), ("S3", "symmetric:3"),
        ("random 5", "random:n=5,k=3,seed=0,classes=state")]
COLUMNS = [("full", "bilinear-full"), ("cp", "bilinear-cp"), ("block", "bilinear-block"),
           ("r2", "bilinear-r2"), ("real-diag", "bilinear-real-diag"),
           ("deltaproduct", "deltaproduct"), ("deltanet-neg", "deltanet-neg"),
           ("fixed-point", "fixed-point"), ("minmax-dense", "minmax-dense")]
REGISTRY = {arch for _, arch in COLUMNS} - {"deltanet-neg"}
RELAX = 0.2
"""τ of minmax-dense's straight-through gradient: the plain subgradient fit the training
words on 2 of 7 rows in 30 rounds."""


# ------------------------------------------------------------------ what is possible
def possible(out: str, specs: list[str]) -> dict[str, dict[str, Any]]:
    """{spec: {arch: {"verdict", "size", "reason"}}} from ``fsmnet.expressivity`` (kept in
    ``OUT/possible.json``: a minute or two on a loaded machine)."""
    path = os.path.join(out, "possible.json")
    cached: dict[str, Any] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            cached = json.load(fh)
    missing = [spec for spec in specs if spec not in cached]
    if missing:
        import fsmnet

        for spec in missing:
            log(f"expressivity {spec} ...")
            found = {r.arch: {"verdict": r.verdict, "size": r.size, "reason": r.reason}
                     for r in fsmnet.expressivity(spec, sorted(REGISTRY))}
            dp = found["deltaproduct"]
            one = dp["verdict"] == "possible" and (dp["size"] or {}).get("n_h") == 1
            found["deltanet-neg"] = {
                "verdict": "possible" if one else "not shown",
                "size": dp["size"] if one else None,
                "reason": ("fsmnet's deltaproduct construction needs one reflection per letter"
                           if one else "fsmnet's deltaproduct construction needs n_h = "
                           f"{(dp['size'] or {}).get('n_h')} > 1")}
            cached[spec] = found
        save_json(path, cached)
    return cached


def theorem_g(spec: str) -> str | None:
    """Theorem G's obstruction for the automaton (docs/theory.md §5), in words, or None:
    no generic-weight network of the linear classes is right for every length in
    exact arithmetic."""
    import fsmnet
    from fsmnet.algebra.generic_weights import generic_weights_obstruction

    report = generic_weights_obstruction(fsmnet.load(spec), limit=2000)
    return None if report.obstruction is None else report.obstruction.describe()


LINEAR_CLASSES = {"bilinear-full", "bilinear-cp", "bilinear-block", "bilinear-r2",
                  "bilinear-real-diag"}


# ------------------------------------------------------------------ one seed
def cell_config(spec: str, arch: str, found: dict[str, Any], args: argparse.Namespace
                ) -> dict[str, Any]:
    """The training settings of a cell: sizes from fsmnet's construction.  cp's rank is
    at least |Σ|·states, what its state snap needs (fsmnet.train.snap_states); block
    has the construction's number of blocks (one block on every row here)."""
    from fsmnet.train.data import task_automaton

    size = found.get("size") or {}
    hidden = max(4, int(size.get("hidden", 2)) + 2)
    options: dict[str, Any] = {}
    if arch == "bilinear-block":
        options["blocks"] = len(size.get("blocks") or [1, 1])
    if arch == "bilinear-r2" or options.get("blocks", 1) > 1:  # complex pairs; equal blocks
        hidden += hidden % 2
    if arch == "bilinear-cp":
        automaton = task_automaton(spec)
        options["rank"] = max(hidden, int(size.get("rank", 0)),
                              automaton.n_symbols * automaton.n_states)
    if arch == "deltaproduct":
        options["n_h"] = int(size.get("n_h", 1))
    if arch == "minmax-dense":  # the straight-through gradient (fsmnet.train.relax)
        options["relax"] = RELAX
    return {"hidden": hidden, "steps": args.steps, "round_steps": args.steps,
            "options": options, "lr": args.lr, "batch": 64, "lengths": [2, 10],
            "regularizers": dict(args.regularizers)}


def budget_of(args: argparse.Namespace) -> dict[str, Any]:
    return {"rounds": args.rounds, "cpu_minutes": args.cpu_minutes}


def cell_path(out: str, spec: str, arch: str, seed: int) -> str:
    slug = "".join(c if c.isalnum() else "_" for c in spec)
    return os.path.relpath(os.path.join(out, f"{slug}__{arch}__s{seed}.json"))


def machine() -> dict[str, Any]:
    """The tables' provenance (experiments/provenance.py) and the load average, which
    this table's CPU-time budgets depend on."""
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:  # the tests load this file by path
        sys.path.insert(0, here)
    from provenance import provenance

    return {**provenance(), "load": [round(x, 2) for x in os.getloadavg()]}


def run_seed(job: dict[str, Any]) -> None:
    """The child: one seed of one cell; rewrites ``job["path"]`` after every round."""
    from fsmnet.train.loop import TrainConfig
    from fsmnet.train.until_proved import Budget, train_until_proved

    cfg = job["config"]
    config = TrainConfig(arch=job["arch"], hidden=cfg["hidden"], steps=cfg["steps"],
                         lr=cfg["lr"], batch=cfg["batch"], lengths=tuple(cfg["lengths"]),
                         seed=job["seed"], threads=1, options=dict(cfg["options"]),
                         regularizers=dict(cfg["regularizers"]))
    budget = Budget(rounds=job["budget"]["rounds"],
                    cpu_seconds=60.0 * job["budget"]["cpu_minutes"])
    record = {**job, "machine": machine(), "rounds": [], "done": False}
    cpu0 = time.process_time()

    def progress(r: Any) -> None:
        record["rounds"].append(r.to_json())
        record["cpu_seconds"] = round(time.process_time() - cpu0, 2)
        save_json(job["path"], record)
        cex = "–" if r.counterexample is None else len(r.counterexample)
        log(f"{job['row']} {job['column']} seed {job['seed']}: round {r.round} {r.verdict} "
            f"({r.method}, claim {r.claim}, L={r.proved_length}, |cex|={cex}), "
            f"loss {r.loss:.3g}, acc {r.accuracy:.3f}, {record['cpu_seconds']:.0f} CPU-s")

    try:
        result = train_until_proved(job["spec"], config, budget=budget,
                                    round_steps=cfg["round_steps"], progress=progress)
    except Exception as exc:  # recorded as the seed's reason, then re-raised
        record.update(verdict="error", stopped_by=f"{type(exc).__name__}: {exc}"[:300],
                      cpu_seconds=round(time.process_time() - cpu0, 2), done=True)
        save_json(job["path"], record)
        raise
    cex = result.counterexample
    record.update(verdict=result.verdict, stopped_by=result.stopped_by, claim=result.claim,
                  snapped=result.snapped, steps=result.steps,
                  proved_length=result.proved_length,
                  counterexample_length=None if cex is None else len(cex.word),
                  cpu_seconds=round(time.process_time() - cpu0, 2),
                  wall_seconds=round(result.seconds, 1), done=True)
    save_json(job["path"], record)


def limit_cpu(seconds: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    return apply


def launch(job: dict[str, Any]) -> subprocess.Popen:
    limit = int(60 * (1.5 * job["budget"]["cpu_minutes"] + 1))
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child",
                             json.dumps(job)], preexec_fn=limit_cpu(limit))


def finish(job: dict[str, Any], code: int) -> None:
    """After a child ends: a child killed by its CPU limit (or crashed) leaves a partial
    file (or none); record why."""
    record: dict[str, Any] = {**job, "rounds": []}
    if os.path.exists(job["path"]):
        with open(job["path"], encoding="utf-8") as fh:
            record = json.load(fh)
    if record.get("done"):
        return
    record.update(verdict="stopped", stopped_by=(
        "cpu limit (killed)" if code in (-24, -9) else f"exit {code}"), done=True)
    record.setdefault("machine", machine())
    save_json(job["path"], record)


# ------------------------------------------------------------------ the table
def reason(cell: dict[str, Any], theorem: str | None) -> str:
    """Why a seed did not end proved, from its record."""
    rounds = cell.get("rounds") or []
    last = rounds[-1] if rounds else None
    cpu = cell.get("cpu_seconds")
    spent = f"{cell['stopped_by']} budget spent" if cell["stopped_by"] in (
        "rounds", "cpu_seconds", "steps") else cell["stopped_by"]
    if cell["verdict"] == "error":
        return f"the run raised {cell['stopped_by']}"
    if last is None:
        what = "no round finished"
    elif last["verdict"] == "refuted":
        what = (f"refuted by a word of length {len(last['counterexample'])} "
                f"({last['method']}, {last['claim']} claim)")
    else:
        what = (f"unknown, every word of length ≤ {last['proved_length']} proved "
                f"({last['method']})")
    out = f"{spent} after {len(rounds)} round(s)" + (f", {cpu / 60:.1f} CPU-min" if cpu else "")
    out += f"; last round {what}"
    if rounds:
        best = max(r["accuracy"] for r in rounds)
        fit = sum(r["accuracy"] == 1.0 for r in rounds)
        out += ("; training never fit its sample (best float32 accuracy "
                f"{best:.3f})" if best < 1.0 else
                f"; {fit} of {len(rounds)} round(s) fit the training sample exactly")
    noted = next((r["theorem"] for r in rounds if r.get("theorem")), None)
    if (noted or theorem) and cell["arch"] in LINEAR_CLASSES:
        exact = noted is not None or any(r["claim"] == "exact" for r in rounds)
        short = (noted or theorem or "").split(" (after")[0]
        out += (f"; the exact claim is ruled out by Theorem G ({short}); the "
                f"float32 claim, which it does not cover, was certified first every round"
                + ("" if exact else " (the exact claim was never reached: float32 refuted)"))
    return out


def _minutes(cell: dict[str, Any], budget: dict[str, Any]) -> float:
    """The CPU-minute budget a seed's file says it ran under (else the given one)."""
    return float(cell.get("budget", budget)["cpu_minutes"])


def render(out: str, cells: list[dict[str, Any]], found: dict[str, Any], seeds: int,
           budget: dict[str, Any], theorems: dict[str, str | None],
           rows: list[str] | None = None) -> str:
    """The markdown table (✗ impossible, ? unknown, — not shown possible: no cell), the
    share of cells proved, and one line per seed not proved with its reason."""
    by = {(c["spec"], c["arch"], c["seed"]): c for c in cells}
    head = "| task | " + " | ".join(name for name, _ in COLUMNS) + " |"
    lines = [head, "|---" * (len(COLUMNS) + 1) + "|"]
    notes: list[str] = []
    counted = proved_cells = seeds_run = seeds_proved = 0
    for row, spec in ROWS:
        if rows is not None and row not in rows:
            continue
        entries = []
        for name, arch in COLUMNS:
            verdict = found.get(spec, {}).get(arch, {}).get("verdict")
            if verdict != "possible":
                entries.append({"impossible": "✗", "unknown": "?"}.get(verdict, "—"))
                continue
            mine = [by[(spec, arch, s)] for s in range(seeds) if (spec, arch, s) in by]
            if not mine:
                entries.append("not run")
                continue
            counted += 1
            ok = [c for c in mine if c["verdict"] == "proved"]
            seeds_run += len(mine)
            seeds_proved += len(ok)
            within = [c for c in ok if c["cpu_seconds"] <= 60 * _minutes(c, budget)]
            proved_cells += len(within) * 2 > len(mine)
            cpu = ", ".join(f"{c.get('cpu_seconds', 0) / 60:.1f}" for c in mine)
            rounds = ", ".join(str(len(c["rounds"])) + ("" if c["verdict"] == "proved" else "✗")
                               for c in mine)
            entries.append(f"{len(ok)}/{len(mine)} · {cpu} min · r {rounds}")
            for c in mine:
                if c["verdict"] != "proved":
                    notes.append(f"- {row} × {name}, seed {c['seed']}: "
                                 f"{reason(c, theorems.get(spec))}")
        lines.append(f"| {row} | " + " | ".join(entries) + " |")
    share = 100.0 * proved_cells / counted if counted else 0.0
    # The budget the seeds ran under, read from their files (the options of a
    # --table-only call need not be those of the runs).
    used = sorted({_minutes(c, budget) for c in cells}) or [budget["cpu_minutes"]]
    minutes = f"{used[0]:g}" if len(used) == 1 else f"{used[0]:g}–{used[-1]:g}"
    summary = (f"{proved_cells} of {counted} cells run where fsmnet proves the class possible "
               f"({share:.0f}%) had most of their seeds end proved within "
               f"{minutes} CPU-minutes; {seeds_proved} of {seeds_run} seeds proved.")
    text = "\n".join(lines + ["", summary, "", "Not proved:", *(notes or ["- none"])])
    with open(os.path.join(out, "table.md"), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    return text


# ------------------------------------------------------------------ main
def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--rows", default=",".join(r for r, _ in ROWS),
                   help="row names, comma-separated (default: all): "
                        + ", ".join(r for r, _ in ROWS))
    p.add_argument("--archs", default=",".join(n for n, _ in COLUMNS),
                   help="column names, comma-separated (default: all)")
    p.add_argument("--steps", type=int, default=400, help="steps per round")
    p.add_argument("--rounds", type=int, default=50,
                   help="rounds per seed (default 50: the CPU budget is the binding limit)")
    p.add_argument("--cpu-minutes", type=float, default=10.0,
                   help="CPU budget per seed (checked between rounds; killed at 1.5× + 1 min)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--regularize", default="", metavar="K=V,...",
                   help="regularizer weights (fsmnet.train.losses.REGULARIZERS), e.g. "
                        "moduli=0.1,margin=0.1")
    p.add_argument("--jobs", type=int, default=1, help="seeds run at a time")
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("--force", action="store_true", help="rerun seeds whose files exist")
    p.add_argument("--estimate-only", action="store_true")
    p.add_argument("--table-only", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.regularizers = {k: float(v) for k, v in (
        kv.split("=") for kv in args.regularize.split(",") if kv)}
    rows, cols = dict(ROWS), dict(COLUMNS)
    args.row_list = [r.strip() for r in args.rows.split(",") if r.strip()]
    args.col_list = [c.strip() for c in args.archs.split(",") if c.strip()]
    bad = [r for r in args.row_list if r not in rows] + [c for c in args.col_list
                                                        if c not in cols]
    if bad:
        p.error(f"unknown row or column: {', '.join(bad)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.child:
        run_seed(json.loads(args.child))
        return 0
    os.makedirs(args.out, exist_ok=True)
    rows, cols = dict(ROWS), dict(COLUMNS)
    found = possible(args.out, [rows[r] for r in args.row_list])
    jobs, done = [], []
    for row in args.row_list:
        spec = rows[row]
        for name in args.col_list:
            arch = cols[name]
            if found[spec][arch]["verdict"] != "possible":
                continue
            config = cell_config(spec, arch, found[spec][arch], args)
            for seed in range(args.seeds):
                path = cell_path(args.out, spec, arch, seed)
                job = {"row": row, "spec": spec, "column": name, "arch": arch, "seed": seed,
                       "config": config, "budget": budget_of(args), "path": path}
                if os.path.exists(path) and not args.force:
                    with open(path, encoding="utf-8") as fh:
                        old = json.load(fh)
                    if old.get("done") and old["config"] == config and \
                            old["budget"] == job["budget"]:
                        done.append(job)
                        continue
                jobs.append(job)
    bound = len(jobs) * (1.5 * args.cpu_minutes + 1)
    load = os.getloadavg()[0]
    share = min(args.jobs, os.cpu_count() or 1) / max(1.0, load + args.jobs) * (
        os.cpu_count() or 1)
    print(f"estimate: {len(jobs)} seeds to run ({len(done)} already done), each at most "
          f"{args.cpu_minutes:g} CPU-min (killed at {1.5 * args.cpu_minutes + 1:g}): at most "
          f"{bound:.0f} CPU-min; with {args.jobs} job(s) at load {load:.1f} on "
          f"{os.cpu_count()} cores, at most about {bound / max(share, 1e-3):.0f} wall-min "
          f"(proved seeds stop early)", flush=True)
    if args.estimate_only:
        return 0
    if not args.table_only:
        running: list[tuple[subprocess.Popen, dict[str, Any]]] = []
        queue = list(jobs)
        while queue or running:
            while queue and len(running) < args.jobs:
                job = queue.pop(0)
                log(f"start {job['row']} × {job['column']} seed {job['seed']} "
                    f"(H={job['config']['hidden']}, {job['config']['options']})")
                running.append((launch(job), job))
            time.sleep(1.0)
            for proc, job in list(running):
                code = proc.poll()
                if code is not None:
                    running.remove((proc, job))
                    finish(job, code)
                    with open(job["path"], encoding="utf-8") as fh:
                        rec = json.load(fh)
                    log(f"end {job['row']} × {job['column']} seed {job['seed']}: "
                        f"{rec['verdict']} ({rec['stopped_by']}), "
                        f"{rec.get('cpu_seconds', 0) / 60:.1f} CPU-min, "
                        f"{len(rec['rounds'])} round(s)")
    cells = []
    for name in os.listdir(args.out):
        if name.endswith(".json") and "__s" in name:
            with open(os.path.join(args.out, name), encoding="utf-8") as fh:
                cell = json.load(fh)
            if cell.get("done") and cell["row"] in args.row_list and \
                    cell["column"] in args.col_list:
                cells.append(cell)
    specs = {c["spec"] for c in cells}
    theorems = {spec: theorem_g(spec) for spec in specs}
    print(render(args.out, cells, found, args.seeds, budget_of(args), theorems,
                 args.row_list))
    return 0


def save_json(path: str, payload: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, indent=1, ensure_ascii=False)
    os.replace(tmp, path)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
