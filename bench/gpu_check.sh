#!/usr/bin/env bash
# GPU checks of the scan engine, for a session that is lent a GPU machine.
# Installs nothing from a network: the device image has cupy-cuda13x, numba, torch,
# pytest and hypothesis, and the one missing package travels as a wheel (below).
# Each stage runs under a timeout; a failing stage is recorded in
# $OUT/gpu_check.json and the script goes on.  The stage limits add up to
# 9 minutes, under the device tool's 10-minute limit for one command.
# Usage (repo root):
#   OUT=/some/dir bash bench/gpu_check.sh
# On the device tool: first `bash bench/gpu_wheels.sh` here (the GPU image lacks
# libsemigroups_pybind11), then run "OUT=$OUT bash bench/gpu_check.sh" with carry
# [".whl"] and a 600 s timeout; the wheels are installed offline below.
# Rehearsal without a GPU, on the CUDA emulator (tests/test_gpu_check_script.py):
#   PYTHONPATH=tests/cudaemu GPU_CHECK_LENGTH=20000 GPU_CHECK_MAX_EXP=5 bash bench/gpu_check.sh
set -u
OUT="${OUT:-/tmp/fsmnet-gpu-check}"
LENGTH="${GPU_CHECK_LENGTH:-1000000000}"
MAX_EXP="${GPU_CHECK_MAX_EXP:-9}"
mkdir -p "$OUT"
export OUT
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python3}"
STATUS="$OUT/stages.txt"
: >"$STATUS"
if ls .whl/*.whl >/dev/null 2>&1; then  # carried wheels (bench/gpu_wheels.sh), offline
    SITE=/tmp/fsmnet-gpu-site
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$SITE" .whl/*.whl >"$OUT/wheels.log" 2>&1 || echo "wheel install failed" >>"$OUT/wheels.log"
    export PYTHONPATH="$PYTHONPATH:$SITE"
fi

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
stage imports 30 "$PY" -c "import fsmnet, cupy, numba, libsemigroups_pybind11; print(cupy.__version__, numba.__version__)"
stage pytest_gpu 150 "$PY" -m pytest -o addopts="" -m gpu -p no:xdist -p no:cacheprovider -q -rs \
    --junitxml "$OUT/pytest_gpu.xml" tests/test_gpu_kernels.py
stage bench_gpu 210 "$PY" bench/bench_gpu.py --length "$LENGTH" --json "$OUT/bench_gpu.json"
stage scaling_gpu 120 "$PY" bench/bench_scaling.py --backend cupy --max-exp "$MAX_EXP" \
    --json "$OUT/scaling_gpu.json"

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
