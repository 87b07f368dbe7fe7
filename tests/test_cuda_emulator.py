"""The CUDA emulator catches the faults a GPU would show, so a pass on it means something.

Each test runs a small kernel that is right, then the same kernel with one
classic mistake, and asserts the emulator reports it (the expected behaviour
is CUDA's, from the CUDA C Programming Guide: barriers, alignment of vector
types, 48 KiB of dynamic shared memory without opting in).
"""

from __future__ import annotations

import numpy as np
import pytest
from emulated_cupy import emulator, needs_gxx

pytestmark = needs_gxx

SOURCE = r"""
extern "C" {
// Block-wise reversal through shared memory: right only if the barrier holds.
__global__ void reverse(const int* in, int* out, int barrier) {
    extern __shared__ int tile[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    tile[t] = in[base + t];
    if (barrier) __syncthreads();
    out[base + t] = tile[blockDim.x - 1 - t];
}
__global__ void sum16(const unsigned char* bytes, long long offset, int* out) {
    const uint4* p = reinterpret_cast<const uint4*>(bytes + offset);
    uint4 v = p[0];
    out[0] = (v.x & 0xff) + (v.w >> 24);
}
__global__ void early_exit(int* out, int n) {
    extern __shared__ int tile[];
    int t = threadIdx.x;
    if (t >= n) return;
    tile[t] = t;
    __syncthreads();
    out[t] = tile[n - 1 - t];
}
__global__ void fill(int* out, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = value;   // off by one on purpose when asked to write n + 1
}
__global__ void stage(double* out, long long count) {
    extern __shared__ double big[];
    for (long long i = threadIdx.x; i < count; i += blockDim.x) big[i] = (double)i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = big[count - 1];
}
}
"""


@pytest.fixture(scope="module")
def cp():
    return emulator()


@pytest.fixture(scope="module")
def module(cp):
    return cp.RawModule(code=SOURCE, options=("-std=c++17",))


def test_barrier_orders_the_block(cp, module):
    data = np.arange(512, dtype=np.int32)
    out = cp.empty(512, dtype=np.int32)
    kern = module.get_function("reverse")
    kern((2,), (256,), (cp.asarray(data), out, np.int32(1)), shared_mem=256 * 4)
    want = np.concatenate([data[:256][::-1], data[256:][::-1]])  # reversal by hand
    assert np.array_equal(out.get(), want)
    # Without the barrier, early threads read tiles that later threads have not written.
    kern((2,), (256,), (cp.asarray(data), out, np.int32(0)), shared_mem=256 * 4)
    assert not np.array_equal(out.get(), want)


def test_misaligned_vector_load_faults(cp, module):
    data = cp.asarray(np.arange(64, dtype=np.uint8))
    out = cp.zeros(1, dtype=np.int32)
    kern = module.get_function("sum16")
    kern((1,), (1,), (data, np.int64(16), out))
    assert int(out[0]) == 16 + 31  # bytes 16 and 31 of 0..63
    with pytest.raises(cp.CUDADriverError, match="misaligned"):
        kern((1,), (1,), (data, np.int64(3), out))


def test_divergent_barrier_is_reported(cp, module):
    out = cp.zeros(64, dtype=np.int32)
    kern = module.get_function("early_exit")
    kern((1,), (64,), (out, np.int32(64)), shared_mem=64 * 4)
    assert np.array_equal(out.get(), np.arange(64)[::-1])
    with pytest.raises(cp.CUDADriverError, match="__syncthreads"):
        kern((1,), (64,), (out, np.int32(40)), shared_mem=64 * 4)


def test_write_past_an_array_fails_the_launch(cp, module):
    out = cp.zeros(100, dtype=np.int32)
    kern = module.get_function("fill")
    kern((1,), (128,), (out, np.int32(99), np.int32(7)))
    assert np.all(out.get() == 7)
    with pytest.raises(cp.CUDADriverError, match="past the end"):
        kern((1,), (128,), (out, np.int32(100), np.int32(7)))


def test_argument_types_must_match_the_signature(cp, module):
    out = cp.zeros(100, dtype=np.int32)
    kern = module.get_function("fill")
    with pytest.raises(TypeError, match=r"argument 1 \(n\) is int32; got int64"):
        kern((1,), (128,), (out, 99, np.int32(7)))  # a Python int travels as 8 bytes
    with pytest.raises(TypeError, match="points to int32; the array holds float64"):
        kern((1,), (128,), (cp.zeros(100), np.int32(99), np.int32(7)))
    with pytest.raises(TypeError, match="not a device array"):
        kern((1,), (128,), (np.zeros(100, dtype=np.int32), np.int32(99), np.int32(7)))
    with pytest.raises(TypeError, match="takes 3 arguments"):
        kern((1,), (128,), (out, np.int32(99)))


def test_shared_memory_above_48_kib_needs_opting_in(cp, module):
    count = 8192  # 64 KiB of doubles
    out = cp.zeros(1)
    kern = module.get_function("stage")
    with pytest.raises(cp.CUDADriverError, match="max_dynamic_shared_size_bytes"):
        kern((1,), (256,), (out, np.int64(count)), shared_mem=count * 8)
    kern.max_dynamic_shared_size_bytes = count * 8
    kern((1,), (256,), (out, np.int64(count)), shared_mem=count * 8)
    assert float(out[0]) == count - 1
    with pytest.raises(cp.CUDADriverError, match="past the dynamic shared memory"):
        kern((1,), (256,), (out, np.int64(count)), shared_mem=count * 8 - 64)


def test_device_arrays_refuse_implicit_conversion(cp):
    on_device = cp.asarray(np.arange(5))
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(on_device)
    assert np.array_equal(cp.asnumpy(on_device), np.arange(5))
    assert on_device.data.ptr % 256 == 0 and on_device[1:].data.ptr % 256 == 8


def test_unknown_kernel_name(cp, module):
    with pytest.raises(cp.CUDADriverError, match="named symbol not found"):
        module.get_function("no_such_kernel")
