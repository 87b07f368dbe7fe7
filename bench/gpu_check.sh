#!/usr/bin/env bash
# GPU checks of the scan engine, for a session that is lent a GPU machine.
# Installs nothing (the device image has cupy-cuda13x, numba, torch, pytest).
# Each stage runs under a timeout; a failing stage is recorded in
# $OUT/gpu_check.json and the script goes on.  Usage (repo root):
#   OUT=/some/dir bash bench/gpu_check.sh
set -u
OUT="${OUT:-/tmp/fsmnet-gpu-check}"
mkdir -p "$OUT"
export OUT
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python3}"
STATUS="$OUT/stages.txt"
: >"$STATUS"

stage() {  # stage NAME SECONDS COMMAND...
    local name=$1 limit=$2
    shift 2
    local begin rc
    begin=$(date +%s)
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    echo "$name $rc $(( $(date +%s) - begin ))" >>"$STATUS"
}

stage nvidia_smi 30 nvidia-smi
stage pytest_gpu 240 "$PY" -m pytest -m gpu -p no:xdist -q -p no:cacheprovider tests/test_gpu_kernels.py
stage bench_gpu 300 "$PY" - <<'PYEOF'
import json, os, time
import numpy as np
import cupy
import fsmnet
from fsmnet.gpu import evaluate

out = {}
n = 10 ** 9
rng = cupy.random.default_rng(0)

def timed(fn, reps=3):
    fn()
    cupy.cuda.Device().synchronize()
    best = 1e9
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - t0)
    return best

def record(key, fn):
    try:
        out[key] = fn()
    except Exception as exc:  # keep going: the next case may still run
        out[key] = {"error": f"{type(exc).__name__}: {exc}"}
    print(key, out[key], flush=True)

def automaton_case(spec):
    a = fsmnet.load(spec)
    word = rng.integers(0, a.n_symbols, n, dtype=cupy.int32).astype(cupy.uint8)
    copy = cupy.empty_like(word)
    t_copy = timed(lambda: copy.__setitem__(slice(None), word))
    t_last = timed(lambda: evaluate(a, word, backend="cupy", outputs="last"))
    res = evaluate(a, word, backend="cupy", outputs="last")
    check = evaluate(a, cupy.asnumpy(word[:10**7]), backend="numba", outputs="last").state
    head = evaluate(a, word[:10**7], backend="cupy", outputs="last").state
    return {"length": n, "states": a.n_states, "path": res.path, "seconds_last": t_last,
            "seconds_d2d_copy": t_copy, "ratio_vs_copy": t_last / t_copy,
            "symbols_per_second": n / t_last, "head_matches_numba": int(head) == int(check)}

def bilinear_case(spec):
    net = fsmnet.compile(fsmnet.load(spec), "bilinear-full")
    word = rng.integers(0, len(net.symbols), n, dtype=cupy.int32).astype(cupy.uint8)
    t_last = timed(lambda: evaluate(net, word, backend="cupy", outputs="last"), reps=1)
    # Baseline: a single-pass chase, one thread block, 10^6 symbols, scaled up.
    short = word[:10**6]
    mats = cupy.asarray(net.semantics.matrices(net, False))
    h = cupy.asarray(net.semantics.initial_state(net, False))
    def chase():
        v = h
        for x in cupy.asnumpy(short[:20000]):
            v = mats[int(x)] @ v
            v = v / cupy.abs(v).max()
        return v
    t_chase = timed(chase, reps=1) / 20000 * n
    return {"length": n, "H": int(net.hidden_size), "seconds_last": t_last,
            "chase_seconds_extrapolated": t_chase, "speedup_vs_chase": t_chase / t_last}

record("automaton_modadd5", lambda: automaton_case("modadd:5"))
record("automaton_symmetric3", lambda: automaton_case("symmetric:3"))
record("automaton_random16", lambda: automaton_case("random:n=16,k=4,seed=1"))
record("bilinear_symmetric3_H6", lambda: bilinear_case("symmetric:3"))
record("bilinear_random16_H16", lambda: bilinear_case("random:n=16,k=3,seed=2,classes=2"))
with open(os.path.join(os.environ["OUT"], "bench_gpu.json"), "w") as f:
    json.dump(out, f, indent=1)
PYEOF
stage scaling_gpu 200 "$PY" bench/bench_scaling.py --backend cupy --max-exp 9 --json "$OUT/scaling_gpu.json"

"$PY" - "$STATUS" "$OUT/gpu_check.json" <<'PYEOF'
import json, sys
stages = {}
for line in open(sys.argv[1]):
    name, rc, sec = line.split()
    stages[name] = {"exit": int(rc), "seconds": int(sec), "ok": rc == "0",
                    "timed_out": rc in ("124", "137")}
json.dump({"stages": stages}, open(sys.argv[2], "w"), indent=1)
print(json.dumps(stages))
PYEOF
exit 0
