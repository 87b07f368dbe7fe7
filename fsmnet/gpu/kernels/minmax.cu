// Levelwise chunked scan of a cascade of MinMax units (docs/constructions-minmax.md; docs/architecture.md, "Scan engine"): scalar
// units with (r, s) pairs, matrix units (k <= KMAX values) with max-min affine maps.
//
// A unit's step at t is (r, s) = table[x_t, code], code = mixed-radix code of
// the coordinates of the units above at t-1.  Once those coordinates are on
// the device (u8, one row of `pitch` = n+1 entries per unit, entry t = value
// before symbol t), the unit's steps are known for every t and its trajectory
// is a three-phase scan of the pairs, composed exactly by
//   (r1, s1) then (r2, s2) = (min(r1, r2), max(min(r2, s1), s2)).
// Max and min only select values: the result is bit-identical to the CPU.

// common.cuh (typedefs, stage_table, byte_at) is prepended by the host.

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

// ------------------------------------------------------------ matrix units
// A matrix unit holds k <= KMAX values and steps by x -> (R (x) x) (+) s (max-min).  A
// chunk's summary is the affine map (R, s), composed step by step as
// (R_t (x) R, (R_t (x) s) (+) s_t): exact, since (x) distributes over (+) on a chain.
#define KMAX 8

// (racc, sacc) <- the step (r_t, s_t) after (racc, sacc).
__device__ __forceinline__ void affine_then(const double* __restrict__ r_t,
                                            const double* __restrict__ s_t, int k,
                                            double* racc, double* sacc) {
    double rn[KMAX * KMAX], sn[KMAX];
    for (int i = 0; i < k; ++i) {
        double acc = s_t[i];
        for (int j = 0; j < k; ++j) acc = fmax(acc, fmin(r_t[i * k + j], sacc[j]));
        sn[i] = acc;
        for (int col = 0; col < k; ++col) {
            double best = __longlong_as_double(0xfff0000000000000LL);
            for (int j = 0; j < k; ++j) best = fmax(best, fmin(r_t[i * k + j], racc[j * k + col]));
            rn[i * k + col] = best;
        }
    }
    for (int i = 0; i < k * k; ++i) racc[i] = rn[i];
    for (int i = 0; i < k; ++i) sacc[i] = sn[i];
}

// v <- (r (x) v) (+) s.
__device__ __forceinline__ void affine_apply(const double* __restrict__ r,
                                             const double* __restrict__ s, int k, double* v) {
    double w[KMAX];
    for (int i = 0; i < k; ++i) {
        double acc = s[i];
        for (int j = 0; j < k; ++j) acc = fmax(acc, fmin(r[i * k + j], v[j]));
        w[i] = acc;
    }
    for (int i = 0; i < k; ++i) v[i] = w[i];
}

__device__ __forceinline__ void affine_identity(int k, double* racc, double* sacc) {
    const double top = __longlong_as_double(0x7ff0000000000000LL);
    const double bottom = __longlong_as_double(0xfff0000000000000LL);
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) racc[i * k + j] = i == j ? top : bottom;
        sacc[i] = bottom;
    }
}

template <typename Sym>
__device__ void matrix_summary(const double* __restrict__ tab_r_g,
                               const double* __restrict__ tab_s_g, i32 n_sym, i32 dom, i32 k,
                               const Sym* __restrict__ symbols, i64 n,
                               const u8* __restrict__ coords, i64 pitch, i32 n_above,
                               const i64* __restrict__ pstr, i64 chunk, i64 n_chunks,
                               int use_shared, double* __restrict__ out_r,
                               double* __restrict__ out_s) {
    extern __shared__ double smem_f64[];
    i64 cells = (i64)n_sym * dom;
    const double* tab_r = stage_table(tab_r_g, cells * k * k, use_shared, smem_f64);
    const double* tab_s = stage_table(tab_s_g, cells * k, use_shared, smem_f64 + cells * k * k);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    double racc[KMAX * KMAX], sacc[KMAX];
    affine_identity(k, racc, sacc);
    i64 end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (i64 t = c * chunk; t < end; ++t) {
        i64 cell = (i64)symbols[t] * dom + code_at(coords, pitch, n_above, pstr, t);
        affine_then(tab_r + cell * k * k, tab_s + cell * k, k, racc, sacc);
    }
    for (int i = 0; i < k * k; ++i) out_r[c * k * k + i] = racc[i];
    for (int i = 0; i < k; ++i) out_s[c * k + i] = sacc[i];
}

template <typename Sym>
__device__ void matrix_replay(const double* __restrict__ tab_r_g,
                              const double* __restrict__ tab_s_g, i32 n_sym, i32 dom, i32 k,
                              const Sym* __restrict__ symbols, i64 n, u8* __restrict__ coords,
                              i64 pitch, i32 unit, i32 n_above, const i64* __restrict__ pstr,
                              i64 chunk, i64 n_chunks, const double* __restrict__ starts,
                              int use_shared) {
    extern __shared__ double smem_f64[];
    i64 cells = (i64)n_sym * dom;
    const double* tab_r = stage_table(tab_r_g, cells * k * k, use_shared, smem_f64);
    const double* tab_s = stage_table(tab_s_g, cells * k, use_shared, smem_f64 + cells * k * k);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    double v[KMAX];
    for (int i = 0; i < k; ++i) v[i] = starts[c * k + i];
    u8* mine = coords + (i64)unit * pitch;
    i64 end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (i64 t = c * chunk; t < end; ++t) {
        i64 cell = (i64)symbols[t] * dom + code_at(coords, pitch, n_above, pstr, t);
        affine_apply(tab_r + cell * k * k, tab_s + cell * k, k, v);
        int top = 0;
        for (int i = 1; i < k; ++i)
            if (v[i] > v[top]) top = i;  // the first argmax, like numpy.argmax
        mine[t + 1] = (u8)top;
    }
}

extern "C" {

#define MATRIX_KERNELS(SUFFIX, SYM)                                                         \
    __global__ void matrix_summary_##SUFFIX(const double* tr, const double* ts, i32 ns,     \
                                            i32 dom, i32 k, const SYM* sym, i64 n,          \
                                            const u8* coords, i64 pitch, i32 na,            \
                                            const i64* pstr, i64 chunk, i64 nc, int sh,     \
                                            double* r, double* s) {                         \
        matrix_summary<SYM>(tr, ts, ns, dom, k, sym, n, coords, pitch, na, pstr, chunk, nc, \
                            sh, r, s);                                                      \
    }                                                                                       \
    __global__ void matrix_replay_##SUFFIX(const double* tr, const double* ts, i32 ns,      \
                                           i32 dom, i32 k, const SYM* sym, i64 n,           \
                                           u8* coords, i64 pitch, i32 unit, i32 na,         \
                                           const i64* pstr, i64 chunk, i64 nc,              \
                                           const double* starts, int sh) {                  \
        matrix_replay<SYM>(tr, ts, ns, dom, k, sym, n, coords, pitch, unit, na, pstr, chunk, \
                           nc, starts, sh);                                                 \
    }
MATRIX_KERNELS(u8, u8)
MATRIX_KERNELS(i32, i32)

// Phase 2a for matrix units: compose the maps of G consecutive chunks (a thread a group).
__global__ void compose_matrix_groups(const double* r, const double* s, i64 n_chunks, i32 k,
                                      i64 group, i64 n_groups, double* gr, double* gs) {
    i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    double racc[KMAX * KMAX], sacc[KMAX];
    affine_identity(k, racc, sacc);
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) affine_then(r + c * k * k, s + c * k, k, racc, sacc);
    for (int i = 0; i < k * k; ++i) gr[g * k * k + i] = racc[i];
    for (int i = 0; i < k; ++i) gs[g * k + i] = sacc[i];
}

// Phase 2c for matrix units: each group applies its chunks' maps to its start vector.
__global__ void expand_matrix_groups(const double* r, const double* s, i64 n_chunks, i32 k,
                                     i64 group, i64 n_groups, const double* gstart,
                                     double* cstart) {
    i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    double v[KMAX];
    for (int i = 0; i < k; ++i) v[i] = gstart[g * k + i];
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) {
        for (int i = 0; i < k; ++i) cstart[c * k + i] = v[i];
        affine_apply(r + c * k * k, s + c * k, k, v);
    }
}

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
