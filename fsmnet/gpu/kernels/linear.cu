// Chunked scan of a linear recurrence h_t = A[x_t] h_{t-1} (bilinear networks).
//
// The host pads H up to a compiled size (4, 8, 16; wider nets run on the host) with zero rows and
// columns: padded coordinates stay 0, so the padded chase is the same chase.
//
// Phase 1  thread (chunk c, column j) chases e_j through chunk c: column j of
//          the chunk product A[x_end] ... A[x_begin].  Each column is rescaled
//          by powers of two (exact) with its own exponent; normalize_products
//          then brings a matrix's columns to a common scale.
// Phase 2  the same column chase over G chunk products gives group products;
//          the host chases h0 through the few group products; expand_groups
//          writes each chunk's start vector.
// Phase 3  thread per chunk replays its chunk from its start vector, writing
//          the argmax label of readout . h (first maximum, like numpy.argmax).
// Positive rescaling changes no argmax, and powers of two round nothing.

// common.cuh (typedefs, stage_table, byte_at) is prepended by the host.

// v <- A v, rescaled so that its largest magnitude lies in [0.5, 1); returns the exponent.
template <int H>
__device__ __forceinline__ int step_renorm(const double* __restrict__ a, double (&v)[H]) {
    double w[H];
    double big = 0.0;
#pragma unroll
    for (int i = 0; i < H; ++i) {
        double acc = 0.0;
#pragma unroll
        for (int k = 0; k < H; ++k) acc = fma(a[i * H + k], v[k], acc);
        w[i] = acc;
        big = fmax(big, fabs(acc));
    }
    int e = 0;
    if (big > 0.0) frexp(big, &e);
#pragma unroll
    for (int i = 0; i < H; ++i) v[i] = ldexp(w[i], -e);
    return e;
}

template <int H, typename Sym>
__device__ void chunk_products(const double* __restrict__ mats_g, i32 n_sym,
                               const Sym* __restrict__ symbols, i64 n, i64 chunk, i64 n_chunks,
                               int use_shared, double* __restrict__ prod, i32* __restrict__ exps) {
    extern __shared__ double smem_f64[];
    const double* mats = stage_table(mats_g, (i64)n_sym * H * H, use_shared, smem_f64);
    i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n_chunks * H) return;
    i64 c = idx / H;
    int j = (int)(idx % H);
    double v[H];
#pragma unroll
    for (int i = 0; i < H; ++i) v[i] = i == j ? 1.0 : 0.0;
    int ex = 0;
    i64 end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (i64 t = c * chunk; t < end; ++t) ex += step_renorm<H>(mats + (i64)symbols[t] * H * H, v);
#pragma unroll
    for (int i = 0; i < H; ++i) prod[(c * H + i) * H + j] = v[i];
    exps[c * H + j] = ex;
}

template <int H>
__device__ void normalize_products(double* __restrict__ prod, const i32* __restrict__ exps,
                                   i64 count) {
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= count) return;
    int top = exps[c * H];
    for (int j = 1; j < H; ++j) top = max(top, exps[c * H + j]);
    for (int i = 0; i < H; ++i)
        for (int j = 0; j < H; ++j)
            prod[(c * H + i) * H + j] = ldexp(prod[(c * H + i) * H + j], exps[c * H + j] - top);
}

template <int H>
__device__ void group_products(const double* __restrict__ prod, i64 n_chunks, i64 group,
                               i64 n_groups, double* __restrict__ gprod, i32* __restrict__ gexps) {
    i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n_groups * H) return;
    i64 g = idx / H;
    int j = (int)(idx % H);
    double v[H];
#pragma unroll
    for (int i = 0; i < H; ++i) v[i] = i == j ? 1.0 : 0.0;
    int ex = 0;
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) ex += step_renorm<H>(prod + c * H * H, v);
#pragma unroll
    for (int i = 0; i < H; ++i) gprod[(g * H + i) * H + j] = v[i];
    gexps[g * H + j] = ex;
}

template <int H>
__device__ void expand_groups(const double* __restrict__ prod, i64 n_chunks, i64 group,
                              i64 n_groups, const double* __restrict__ gstart,
                              double* __restrict__ cstart) {
    i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    double v[H];
#pragma unroll
    for (int i = 0; i < H; ++i) v[i] = gstart[g * H + i];
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) {
#pragma unroll
        for (int i = 0; i < H; ++i) cstart[c * H + i] = v[i];
        step_renorm<H>(prod + c * H * H, v);
    }
}

template <int H, typename Sym, typename Out>
__device__ void replay(const double* __restrict__ mats_g, const double* __restrict__ readout_g,
                       i32 n_sym, i32 n_classes, const Sym* __restrict__ symbols, i64 n,
                       i64 chunk, i64 n_chunks, const double* __restrict__ cstart,
                       int use_shared, Out* __restrict__ outputs) {
    extern __shared__ double smem_f64[];
    i64 cells = (i64)n_sym * H * H;
    const double* mats = stage_table(mats_g, cells, use_shared, smem_f64);
    const double* readout = stage_table(readout_g, (i64)n_classes * H, use_shared,
                                        smem_f64 + cells);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    double v[H];
#pragma unroll
    for (int i = 0; i < H; ++i) v[i] = cstart[c * H + i];
    i64 end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (i64 t = c * chunk; t < end; ++t) {
        step_renorm<H>(mats + (i64)symbols[t] * H * H, v);
        int best = 0;
        double best_score = 0.0;
        for (int k = 0; k < n_classes; ++k) {
            double sc = 0.0;
#pragma unroll
            for (int i = 0; i < H; ++i) sc = fma(readout[k * H + i], v[i], sc);
            if (k == 0 || sc > best_score) {
                best = k;
                best_score = sc;
            }
        }
        outputs[t] = (Out)best;
    }
}

#define LINEAR_KERNELS(H)                                                                   \
    __global__ void chunk_products_##H##_u8(const double* m, i32 ns, const u8* s, i64 n,    \
                                            i64 ch, i64 nc, int sh, double* p, i32* e) {    \
        chunk_products<H, u8>(m, ns, s, n, ch, nc, sh, p, e);                               \
    }                                                                                       \
    __global__ void chunk_products_##H##_i32(const double* m, i32 ns, const i32* s, i64 n,  \
                                             i64 ch, i64 nc, int sh, double* p, i32* e) {   \
        chunk_products<H, i32>(m, ns, s, n, ch, nc, sh, p, e);                              \
    }                                                                                       \
    __global__ void normalize_products_##H(double* p, const i32* e, i64 count) {            \
        normalize_products<H>(p, e, count);                                                 \
    }                                                                                       \
    __global__ void group_products_##H(const double* p, i64 nc, i64 g, i64 ng, double* gp, \
                                       i32* ge) {                                           \
        group_products<H>(p, nc, g, ng, gp, ge);                                            \
    }                                                                                       \
    __global__ void expand_groups_##H(const double* p, i64 nc, i64 g, i64 ng,               \
                                      const double* gs, double* cs) {                       \
        expand_groups<H>(p, nc, g, ng, gs, cs);                                             \
    }                                                                                       \
    __global__ void replay_##H##_u8_u8(const double* m, const double* r, i32 ns, i32 nk,    \
                                       const u8* s, i64 n, i64 ch, i64 nc, const double* cs,\
                                       int sh, u8* o) {                                     \
        replay<H, u8, u8>(m, r, ns, nk, s, n, ch, nc, cs, sh, o);                           \
    }                                                                                       \
    __global__ void replay_##H##_u8_i32(const double* m, const double* r, i32 ns, i32 nk,   \
                                        const u8* s, i64 n, i64 ch, i64 nc,                 \
                                        const double* cs, int sh, i32* o) {                 \
        replay<H, u8, i32>(m, r, ns, nk, s, n, ch, nc, cs, sh, o);                          \
    }                                                                                       \
    __global__ void replay_##H##_i32_u8(const double* m, const double* r, i32 ns, i32 nk,   \
                                        const i32* s, i64 n, i64 ch, i64 nc,                \
                                        const double* cs, int sh, u8* o) {                  \
        replay<H, i32, u8>(m, r, ns, nk, s, n, ch, nc, cs, sh, o);                          \
    }                                                                                       \
    __global__ void replay_##H##_i32_i32(const double* m, const double* r, i32 ns, i32 nk,  \
                                         const i32* s, i64 n, i64 ch, i64 nc,               \
                                         const double* cs, int sh, i32* o) {                \
        replay<H, i32, i32>(m, r, ns, nk, s, n, ch, nc, cs, sh, o);                         \
    }

extern "C" {
LINEAR_KERNELS(4)
LINEAR_KERNELS(8)
LINEAR_KERNELS(16)
}
