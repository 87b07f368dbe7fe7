"""Builds a ``.cu`` source into a host shared library and launches its kernels.

Stage 1 preprocesses the source (``g++ -E``) with the CUDA qualifiers turned into
a marker, so that every ``__global__`` signature, macro-generated ones included,
can be read with its parameter types.  Stage 2 compiles the preprocessed text
after ``runtime.h`` together with one launcher per kernel, which unpacks a
``void**`` argument list exactly as ``cuLaunchKernel`` does.  Libraries are
cached by the hash of everything that went into them.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RUNTIME = Path(__file__).with_name("runtime.h")
MARK = "EMU_GLOBAL_MARK"
PRELUDE = f"""
#define __global__ {MARK}
#define __device__
#define __host__
#define __forceinline__ inline
#define threadIdx emu::thread_idx
#define blockIdx emu::block_idx
#define blockDim emu::block_dim
#define gridDim emu::grid_dim
"""
# Parameter types a kernel may take, as NumPy dtypes (the pointee for pointers).
C_TYPES = {
    "u8": np.uint8, "unsigned char": np.uint8, "char": np.int8, "signed char": np.int8,
    "i32": np.int32, "int": np.int32, "unsigned int": np.uint32, "unsigned": np.uint32,
    "i64": np.int64, "long long": np.int64, "unsigned long long": np.uint64,
    "float": np.float32, "double": np.float64, "bool": np.bool_,
}
CANONICAL = {np.dtype(np.uint8): "unsigned char", np.dtype(np.int8): "signed char",
             np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
             np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
             np.dtype(np.float32): "float", np.dtype(np.float64): "double",
             np.dtype(np.bool_): "bool"}
SHARED = re.compile(r"extern\s+__shared__\s+(\w+)\s+(\w+)\s*\[\s*\]\s*;")


class CompileError(RuntimeError):
    """The emulator could not build a source (the message holds the compiler's)."""


@dataclass(frozen=True)
class Param:
    name: str
    dtype: np.dtype
    pointer: bool


def _parse_param(text: str, kernel: str) -> Param:
    text = " ".join(text.split())
    match = re.fullmatch(r"(.*?)(\w+)", text)
    if match is None:
        raise CompileError(f"kernel {kernel}: cannot read parameter {text!r}")
    type_text, name = match.groups()
    pointer = "*" in type_text
    base = re.sub(r"\b(const|volatile|__restrict__|__restrict)\b|\*|&", " ", type_text)
    base = " ".join(base.split())
    if base not in C_TYPES or type_text.count("*") > 1:
        raise CompileError(f"kernel {kernel}: parameter {name} has a type the emulator "
                           f"does not pass: {type_text.strip()!r}")
    return Param(name, np.dtype(C_TYPES[base]), pointer)


def kernel_signatures(preprocessed: str) -> dict[str, list[Param]]:
    """Every ``__global__`` kernel of a preprocessed source and its parameters."""
    found: dict[str, list[Param]] = {}
    for match in re.finditer(MARK + r"\s+void\s+(\w+)\s*\(([^)]*)\)", preprocessed):
        name, params = match.groups()
        params = "\n".join(line for line in params.splitlines() if not line.startswith("#"))
        found[name] = [_parse_param(p, name) for p in params.split(",") if p.strip()]
    return found


def _cache_dir() -> Path:
    root = os.environ.get("FSMNET_CUDAEMU_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "fsmnet-cudaemu")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _run(cmd: list[str], what: str) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CompileError(f"{what} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def _launcher(name: str, params: list[Param]) -> str:
    args = []
    for i, p in enumerate(params):
        base = CANONICAL[p.dtype]
        args.append(f"*reinterpret_cast<{base}**>(args[{i}])" if p.pointer
                    else f"*reinterpret_cast<{base}*>(args[{i}])")
    call = f"{name}({', '.join(args)});"
    return (f'extern "C" int emu_launch_{name}(void** args, unsigned grid, unsigned block, '
            f"unsigned long shared) {{\n"
            f"    std::function<void()> body = [&]() {{ {call} }};\n"
            f"    return emu::run_grid(grid, block, shared, body);\n}}\n")


def build(code: str, source_name: str, defines: tuple[str, ...] = ()
          ) -> tuple[ctypes.CDLL, dict[str, list[Param]]]:
    """Compile ``code`` (a CUDA C source) into a loaded library and its kernel table.

    ``defines`` are ``-DNAME=VALUE`` options, as NVRTC takes them."""
    compiler = shutil.which("g++")
    if compiler is None:
        raise CompileError("the CUDA emulator needs g++, which is not installed")
    if SHARED.sub("", code).count("__shared__"):
        raise CompileError(f"{source_name}: only `extern __shared__ T name[];` (dynamic "
                           f"shared memory) is emulated")
    rewritten = SHARED.sub(r"\1* \2 = reinterpret_cast<\1*>(emu::shared_base);", code)
    key = hashlib.sha256("\0".join([PRELUDE, RUNTIME.read_text(), rewritten, *defines,
                                    _run([compiler, "--version"], "g++ --version")])
                         .encode()).hexdigest()[:24]
    cache = _cache_dir()
    library = cache / f"{key}.so"
    with tempfile.TemporaryDirectory() as tmp:
        stage1 = Path(tmp) / f"{Path(source_name).stem}.cu.cpp"
        stage1.write_text(PRELUDE + rewritten)
        preprocessed = _run([compiler, "-E", "-x", "c++", "-std=c++17", *defines, str(stage1)],
                            f"preprocessing {source_name}")
        kernels = kernel_signatures(preprocessed)
        if not library.exists():
            body = preprocessed.replace(MARK, "")
            full = (f'#include "{RUNTIME}"\n{body}\n'
                    + "".join(_launcher(n, p) for n, p in kernels.items()))
            table = cache / f"{key}.{os.getpid()}.cpp"
            table.write_text(full)
            partial = cache / f"{key}.{os.getpid()}.so"
            _run([compiler, "-O2", "-std=c++17", "-shared", "-fPIC", "-w", "-x", "c++",
                  str(table), "-o", str(partial)], f"compiling {source_name} for the host")
            os.replace(partial, library)  # atomic: parallel test workers may race here
    return ctypes.CDLL(str(library)), kernels
