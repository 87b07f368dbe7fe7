#!/usr/bin/env bash
# Run HERE (a machine with network), before bench/gpu_check.sh is sent to a GPU machine.
#
# The GPU machine's image (see the device tool's KINDS.md) has cupy-cuda13x, numba,
# torch, sympy, safetensors, pyyaml, tqdm, hypothesis and pytest, but not
# libsemigroups_pybind11 (the Cayley tables of the automaton scan) nor graphviz (a
# dependency it imports); it cannot reach a package index and runs Python 3.12.
# fsmnet itself runs from the source tree there (PYTHONPATH), and z3, automata-lib
# and dask are not needed by the GPU checks (their imports are lazy).
#
# This downloads those wheels into .whl/ (git-ignored). Then call the device with
# carry [".whl"]; gpu_check.sh installs them offline into a folder of its own.
set -eu
cd "$(dirname "$0")/.."
rm -rf .whl
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
    "libsemigroups_pybind11==1.4.4" "graphviz>=0.21"
ls -la .whl
