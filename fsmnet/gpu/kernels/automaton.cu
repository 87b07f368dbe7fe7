// Chunked scan of an automaton over a long symbol array (docs/architecture.md, "Scan engine").
//
// Phase 1  one thread a chunk: the chunk's summary.  Either its transition
//          monoid element (one lookup a symbol in the right Cayley table,
//          elements x symbols), or the images of every start state (Q lookups
//          a symbol) when the monoid is too large for a table.
// Phase 2  the summaries are transformations (n_chunks x Q).  compose_groups
//          composes G consecutive ones (a thread per group and start state),
//          the host scans the few group transformations, expand_groups walks
//          each group from its start state and writes every chunk's start.
// Phase 3  one thread a chunk replays it from its start state, writing labels.
//
// Tables live in shared memory when they fit (use_shared), else they are read
// from global memory (L1/L2 hold them).  Indices into the input are 64-bit.
// Symbols are uint8 (|alphabet| <= 256) or int32; labels uint8 or int32.
// common.cuh (typedefs, stage_table, byte_at) is prepended by the host.

template <typename Sym>
__device__ void cayley_summary(const i32* __restrict__ cayley_g, i32 n_elems, i32 n_sym,
                               i32 identity, const Sym* __restrict__ symbols, i64 n, i64 chunk,
                               i64 n_chunks, int use_shared, i32* __restrict__ out) {
    extern __shared__ i32 smem_i32[];
    const i32* table = stage_table(cayley_g, (i64)n_elems * n_sym, use_shared, smem_i32);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    i64 t = c * chunk;
    i64 end = t + chunk < n ? t + chunk : n;
    i32 e = identity;
    if (sizeof(Sym) == 1 && (chunk & 15) == 0) {
        // Vector loads: the chunk start is 16-byte aligned (base allocations are).
        const uint4* p = reinterpret_cast<const uint4*>(symbols + t);
        i64 full = (end - t) >> 4;
        for (i64 b = 0; b < full; ++b) {
            uint4 v = p[b];
#pragma unroll
            for (int k = 0; k < 16; ++k) e = table[e * n_sym + byte_at(v, k)];
        }
        t += full << 4;
    }
    for (; t < end; ++t) e = table[e * n_sym + (i32)symbols[t]];
    out[c] = e;
}

template <typename Sym>
__device__ void all_states_summary(const i32* __restrict__ delta_g, i32 n_states, i32 n_sym,
                                   const Sym* __restrict__ symbols, i64 n, i64 chunk,
                                   i64 n_chunks, int use_shared, i32* __restrict__ out) {
    extern __shared__ i32 smem_i32[];
    const i32* delta = stage_table(delta_g, (i64)n_states * n_sym, use_shared, smem_i32);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    i64 begin = c * chunk;
    i64 end = begin + chunk < n ? begin + chunk : n;
    // Images of every start state, 64 at a time (the host caps Q; see cupy_backend).
    for (i32 q0 = 0; q0 < n_states; q0 += 64) {
        i32 img[64];
        i32 m = n_states - q0 < 64 ? n_states - q0 : 64;
        for (i32 q = 0; q < m; ++q) img[q] = q0 + q;
        for (i64 t = begin; t < end; ++t) {
            const i32* row = delta + (i64)symbols[t] * n_states;
            for (i32 q = 0; q < m; ++q) img[q] = row[img[q]];
        }
        for (i32 q = 0; q < m; ++q) out[c * n_states + q0 + q] = img[q];
    }
}

template <typename Sym, typename Out>
__device__ void replay(const i32* __restrict__ delta_g, const i32* __restrict__ out_ids_g,
                       i32 n_states, i32 n_sym, const Sym* __restrict__ symbols, i64 n, i64 chunk,
                       i64 n_chunks, const i32* __restrict__ starts, int use_shared,
                       Out* __restrict__ outputs) {
    extern __shared__ i32 smem_i32[];
    i64 cells = (i64)n_states * n_sym;
    const i32* delta = stage_table(delta_g, cells, use_shared, smem_i32);
    const i32* out_ids = stage_table(out_ids_g, (i64)n_states, use_shared, smem_i32 + cells);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    i64 begin = c * chunk;
    i64 end = begin + chunk < n ? begin + chunk : n;
    i32 q = starts[c];
    for (i64 t = begin; t < end; ++t) {
        q = delta[(i64)symbols[t] * n_states + q];
        outputs[t] = (Out)out_ids[q];
    }
}

// Live states of a small automaton (Q <= QMAX <= 16, uint8 symbols), M symbols a lookup.
// words[w * QMAX + q] is the image of q after the word w of M symbols (w = sum of
// s_i k^i, first symbol least significant); delta1 the same for single symbols,
// for the tail.  Padded states q >= Q map to themselves.  The QMAX images live in
// registers (every loop over q is unrolled), so a symbol costs QMAX/M table loads
// instead of the generic kernel's QMAX loads and stores to local memory.
template <int QMAX, int M>
__device__ void live_words(const u8* __restrict__ words_g, const u8* __restrict__ delta1_g,
                           i32 n_states, i32 n_sym, const u8* __restrict__ symbols, i64 n,
                           i64 chunk, i64 n_chunks, int use_shared, i32* __restrict__ out) {
    extern __shared__ u8 smem_u8[];
    i64 n_words = 1;
    for (int i = 0; i < M; ++i) n_words *= n_sym;
    const u8* words = stage_table(words_g, n_words * QMAX, use_shared, smem_u8);
    const u8* delta1 = stage_table(delta1_g, (i64)n_sym * QMAX, use_shared,
                                   smem_u8 + n_words * QMAX);
    i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    i64 t = c * chunk;
    i64 end = t + chunk < n ? t + chunk : n;
    u8 img[QMAX];
#pragma unroll
    for (int q = 0; q < QMAX; ++q) img[q] = (u8)q;
    if ((chunk & 15) == 0) {
        const uint4* p = reinterpret_cast<const uint4*>(symbols + t);
        i64 full = (end - t) >> 4;
        for (i64 b = 0; b < full; ++b) {
            uint4 v = p[b];
#pragma unroll
            for (int j = 0; j < 16; j += M) {
                int w = 0;
#pragma unroll
                for (int i = M - 1; i >= 0; --i) w = w * n_sym + byte_at(v, j + i);
                const u8* row = words + w * QMAX;
#pragma unroll
                for (int q = 0; q < QMAX; ++q) img[q] = row[img[q]];
            }
        }
        t += full << 4;
    }
    for (; t < end; ++t) {
        const u8* row = delta1 + (int)symbols[t] * QMAX;
#pragma unroll
        for (int q = 0; q < QMAX; ++q) img[q] = row[img[q]];
    }
#pragma unroll
    for (int q = 0; q < QMAX; ++q)
        if (q < n_states) out[c * n_states + q] = img[q];
}

extern "C" {

#define LIVE_WORDS(QMAX, M)                                                                 \
    __global__ void live_words_q##QMAX##_m##M(const u8* words, const u8* delta1, i32 n_states, \
                                              i32 n_sym, const u8* symbols, i64 n, i64 chunk,  \
                                              i64 n_chunks, int use_shared, i32* out) {     \
        live_words<QMAX, M>(words, delta1, n_states, n_sym, symbols, n, chunk, n_chunks,    \
                            use_shared, out);                                               \
    }
LIVE_WORDS(8, 1)
LIVE_WORDS(8, 2)
LIVE_WORDS(8, 4)
LIVE_WORDS(8, 8)
LIVE_WORDS(16, 1)
LIVE_WORDS(16, 2)
LIVE_WORDS(16, 4)
LIVE_WORDS(16, 8)

// delta is stored symbol-major here: delta[a * Q + q] (the automaton's layout).
__global__ void cayley_summary_u8(const i32* cayley, i32 n_elems, i32 n_sym, i32 identity,
                                  const u8* symbols, i64 n, i64 chunk, i64 n_chunks,
                                  int use_shared, i32* out) {
    cayley_summary<u8>(cayley, n_elems, n_sym, identity, symbols, n, chunk, n_chunks,
                       use_shared, out);
}
__global__ void cayley_summary_i32(const i32* cayley, i32 n_elems, i32 n_sym, i32 identity,
                                   const i32* symbols, i64 n, i64 chunk, i64 n_chunks,
                                   int use_shared, i32* out) {
    cayley_summary<i32>(cayley, n_elems, n_sym, identity, symbols, n, chunk, n_chunks,
                        use_shared, out);
}
__global__ void all_states_summary_u8(const i32* delta, i32 n_states, i32 n_sym,
                                      const u8* symbols, i64 n, i64 chunk, i64 n_chunks,
                                      int use_shared, i32* out) {
    all_states_summary<u8>(delta, n_states, n_sym, symbols, n, chunk, n_chunks, use_shared, out);
}
__global__ void all_states_summary_i32(const i32* delta, i32 n_states, i32 n_sym,
                                       const i32* symbols, i64 n, i64 chunk, i64 n_chunks,
                                       int use_shared, i32* out) {
    all_states_summary<i32>(delta, n_states, n_sym, symbols, n, chunk, n_chunks, use_shared,
                            out);
}

// Phase 2a: group g, start state q -> image of q through chunks [g*G, (g+1)*G).
__global__ void compose_groups(const i32* trans, i64 n_chunks, i32 n_states, i64 group,
                               i64 n_groups, i32* group_trans) {
    i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n_groups * n_states) return;
    i64 g = idx / n_states;
    i32 s = (i32)(idx % n_states);
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) s = trans[c * n_states + s];
    group_trans[idx] = s;
}

// Phase 2c: each group walks its chunks from its known start state.
__global__ void expand_groups(const i32* trans, i64 n_chunks, i32 n_states, i64 group,
                              i64 n_groups, const i32* group_start, i32* chunk_start) {
    i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_groups) return;
    i32 s = group_start[g];
    i64 end = (g + 1) * group < n_chunks ? (g + 1) * group : n_chunks;
    for (i64 c = g * group; c < end; ++c) {
        chunk_start[c] = s;
        s = trans[c * n_states + s];
    }
}

#define REPLAY(NAME, SYM, OUT)                                                              \
    __global__ void NAME(const i32* delta, const i32* out_ids, i32 n_states, i32 n_sym,      \
                         const SYM* symbols, i64 n, i64 chunk, i64 n_chunks,                 \
                         const i32* starts, int use_shared, OUT* outputs) {                  \
        replay<SYM, OUT>(delta, out_ids, n_states, n_sym, symbols, n, chunk, n_chunks,       \
                         starts, use_shared, outputs);                                       \
    }
REPLAY(replay_u8_u8, u8, u8)
REPLAY(replay_u8_i32, u8, i32)
REPLAY(replay_i32_u8, i32, u8)
REPLAY(replay_i32_i32, i32, i32)

}  // extern "C"
