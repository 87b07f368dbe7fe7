// What every kernel file shares.  The host prepends this file to each .cu source
// (fsmnet.gpu.cupy_backend.kernel_source) instead of an #include, so the sources
// compile under NVRTC (CuPy) with no include path, under nvcc (CI) and on the
// CUDA emulator (tests/cudaemu) alike.

typedef unsigned char u8;
typedef int i32;
typedef long long i64;

// Copies n entries to shared memory (or not) and returns the table to use.  Every
// thread of the block must call it: it ends with a barrier.
template <typename T>
__device__ const T* stage_table(const T* __restrict__ global, i64 n, int use_shared, T* shared) {
    if (!use_shared) return global;
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) shared[i] = global[i];
    __syncthreads();
    return shared;
}

// Byte k (0..15) of one aligned 16-byte load, in memory order.
__device__ __forceinline__ int byte_at(const uint4& v, int k) {
    unsigned int w = k < 4 ? v.x : k < 8 ? v.y : k < 12 ? v.z : v.w;
    return (w >> (8 * (k & 3))) & 0xff;
}
