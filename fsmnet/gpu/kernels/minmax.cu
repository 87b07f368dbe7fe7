// Levelwise chunked scan of a cascade of scalar MinMax units (DESIGN.md §4, §6).
//
// A unit's step at t is (r, s) = table[x_t, code], code = mixed-radix code of
// the coordinates of the units above at t-1.  Once those coordinates are on
// the device (u8, one row of `pitch` = n+1 entries per unit, entry t = value
// before symbol t), the unit's steps are known for every t and its trajectory
// is a three-phase scan of the pairs, composed exactly by
//   (r1, s1) then (r2, s2) = (min(r1, r2), max(min(r2, s1), s2)).
// Max and min only select values: the result is bit-identical to the CPU.

typedef unsigned char u8;
typedef int i32;
typedef long long i64;

template <typename T>
__device__ const T* stage_table(const T* __restrict__ global, i64 n, int use_shared, T* shared) {
    if (!use_shared) return global;
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) shared[i] = global[i];
    __syncthreads();
    return shared;
}

__device__ __forceinline__ u8 scalar_coord(double x, i32 k) {
    double f = floor(x);
    f = f < 1.0 ? 1.0 : f;
    f = f > (double)k ? (double)k : f;
    return (u8)((int)f - 1);
}

__device__ __forceinline__ i64 code_at(const u8* __restrict__ coords, i64 pitch, i32 n_above,
                                       const i64* __restrict__ pstr, i64 t) {
    i64 code = 0;
    for (i32 j = 0; j < n_above; ++j) code += (i64)coords[j * pitch + t] * pstr[j];
    return code;
}

template <typename Sym>
__device__ void scalar_summary(const double* __restrict__ tab_g, i32 n_sym, i32 dom,
                               const Sym* __restrict__ symbols, i64 n,
                               const u8* __restrict__ coords, i64 pitch, i32 n_above,
                               const i64* __restrict__ pstr, i64 chunk, i64 n_chunks,
                               int use_shared, double* __restrict__ out_r,
                               double* __restrict__ out_s) {
    // tab_g holds r then s, each n_sym x dom.
    extern __shared__ double smem_f64[];
    i64 cells = (i64)n_sym * dom;
    const double* tab = stage_table(tab_g, 2 * cells, use_shared, smem_f64);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    double r_acc = __longlong_as_double(0x7ff0000000000000LL);   // +inf
    double s_acc = __longlong_as_double(0xfff0000000000000LL);   // -inf
    i64 end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (i64 t = c * chunk; t < end; ++t) {
        i64 i = (i64)symbols[t] * dom + code_at(coords, pitch, n_above, pstr, t);
        double r = tab[i];
        s_acc = fmax(fmin(r, s_acc), tab[cells + i]);
        r_acc = fmin(r_acc, r);
    }
    out_r[c] = r_acc;
    out_s[c] = s_acc;
}

template <typename Sym>
__device__ void scalar_replay(const double* __restrict__ tab_g, i32 n_sym, i32 dom, i32 k,
                              const Sym* __restrict__ symbols, i64 n, u8* __restrict__ coords,
                              i64 pitch, i32 unit, i32 n_above, const i64* __restrict__ pstr,
                              i64 chunk, i64 n_chunks, const double* __restrict__ starts,
                              int use_shared) {
    extern __shared__ double smem_f64[];
    i64 cells = (i64)n_sym * dom;
    const double* tab = stage_table(tab_g, 2 * cells, use_shared, smem_f64);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    double w = starts[c];
    u8* mine = coords + (i64)unit * pitch;
    i64 end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (i64 t = c * chunk; t < end; ++t) {
        i64 i = (i64)symbols[t] * dom + code_at(coords, pitch, n_above, pstr, t);
        w = fmax(fmin(tab[i], w), tab[cells + i]);
        mine[t + 1] = scalar_coord(w, k);
    }
}

extern "C" {

__global__ void scalar_summary_u8(const double* tab, i32 ns, i32 dom, const u8* sym, i64 n,
                                  const u8* coords, i64 pitch, i32 na, const i64* pstr,
                                  i64 chunk, i64 nc, int sh, double* r, double* s) {
    scalar_summary<u8>(tab, ns, dom, sym, n, coords, pitch, na, pstr, chunk, nc, sh, r, s);
}
__global__ void scalar_summary_i32(const double* tab, i32 ns, i32 dom, const i32* sym, i64 n,
                                   const u8* coords, i64 pitch, i32 na, const i64* pstr,
                                   i64 chunk, i64 nc, int sh, double* r, double* s) {
    scalar_summary<i32>(tab, ns, dom, sym, n, coords, pitch, na, pstr, chunk, nc, sh, r, s);
}
__global__ void scalar_replay_u8(const double* tab, i32 ns, i32 dom, i32 k, const u8* sym,
                                 i64 n, u8* coords, i64 pitch, i32 unit, i32 na,
                                 const i64* pstr, i64 chunk, i64 nc, const double* starts,
                                 int sh) {
    scalar_replay<u8>(tab, ns, dom, k, sym, n, coords, pitch, unit, na, pstr, chunk, nc,
                      starts, sh);
}
__global__ void scalar_replay_i32(const double* tab, i32 ns, i32 dom, i32 k, const i32* sym,
                                  i64 n, u8* coords, i64 pitch, i32 unit, i32 na,
                                  const i64* pstr, i64 chunk, i64 nc, const double* starts,
                                  int sh) {
    scalar_replay<i32>(tab, ns, dom, k, sym, n, coords, pitch, unit, na, pstr, chunk, nc,
                       starts, sh);
}

// Phase 2a: compose the pairs of G consecutive chunks (a thread per group).
__global__ void compose_pair_groups(const double* r, const double* s, i64 n_chunks, i64 group,
                                    i64 n_groups, double* gr, double* gs) {
    i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    double ra = __longlong_as_double(0x7ff0000000000000LL);
    double sa = __longlong_as_double(0xfff0000000000000LL);
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) {
        sa = fmax(fmin(r[c], sa), s[c]);
        ra = fmin(ra, r[c]);
    }
    gr[g] = ra;
    gs[g] = sa;
}

// Phase 2c: each group applies its chunks' pairs to its start value.
__global__ void expand_pair_groups(const double* r, const double* s, i64 n_chunks, i64 group,
                                   i64 n_groups, const double* gstart, double* cstart) {
    i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    double x = gstart[g];
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) {
        cstart[c] = x;
        x = fmax(fmin(r[c], x), s[c]);
    }
}

// Labels: readout[code of every unit after symbol t].
__global__ void cascade_labels_i32(const u8* coords, i64 pitch, i32 n_units,
                                   const i64* stride_all, const i32* readout, i64 n,
                                   i32* outputs) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    i64 code = 0;
    for (i32 u = 0; u < n_units; ++u) code += (i64)coords[u * pitch + t + 1] * stride_all[u];
    outputs[t] = readout[code];
}

}  // extern "C"
