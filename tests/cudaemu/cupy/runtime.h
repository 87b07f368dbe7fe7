// Host runtime of the CUDA emulator: what a .cu kernel file expects from the device,
// rebuilt on the CPU so that the kernels themselves run unchanged.
//
// A block's threads are fibers (ucontext) on one OS thread: each runs until it
// reaches __syncthreads() or returns; a barrier opens when every thread of the
// block has reached it.  A thread that returns while others wait at a barrier is
// reported (on a GPU that is undefined behaviour), as are misaligned vector loads
// (a fault on a GPU, silent on x86) and writes past the dynamic shared memory.
// Blocks run one after another, so the emulator finds logic errors, not races.
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <functional>
#include <vector>

namespace emu {

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

enum Error : int {
    kMisaligned = 1,         // a 16-byte vector load from an address not a multiple of 16
    kDivergentBarrier = 2,   // some threads returned while others waited at __syncthreads
    kSharedOverflow = 4,     // a write past the dynamic shared memory asked for at launch
    kStackOverflow = 8,      // a fiber ran over its stack (guard words changed)
};

inline dim3 thread_idx, block_idx, block_dim, grid_dim;
inline unsigned char* shared_base = nullptr;
inline int errors = 0;

struct Fiber {
    ucontext_t context;
    int state = 0;  // 0 runnable, 1 waiting at a barrier, 2 returned
    std::vector<unsigned char> stack;
};

inline std::vector<Fiber>* fibers = nullptr;
inline ucontext_t scheduler;
inline int current = 0;
inline const std::function<void()>* body = nullptr;

inline void fiber_main() {
    (*body)();
    (*fibers)[current].state = 2;  // uc_link resumes the scheduler
}

inline void syncthreads() {
    (*fibers)[current].state = 1;
    swapcontext(&(*fibers)[current].context, &scheduler);
}

constexpr size_t kStack = 256 * 1024;
constexpr size_t kGuard = 256;
constexpr unsigned char kCanary = 0xA5;

// Runs the grid; returns the Error bits seen.
inline int run_grid(unsigned grid_x, unsigned block_x, size_t shared_bytes,
                    const std::function<void()>& kernel) {
    errors = 0;
    // Stacks are kept from launch to launch (allocating 256 of them each time is slow);
    // only their lowest words, the overflow guard, are reset.
    static std::vector<Fiber> pool;
    if (pool.size() < block_x) pool.resize(block_x);
    for (unsigned t = 0; t < block_x; ++t) {
        if (pool[t].stack.size() != kStack) pool[t].stack.resize(kStack);
        memset(pool[t].stack.data(), kCanary, 64);
    }
    std::vector<unsigned char> shared(shared_bytes + kGuard + 16);
    unsigned char* base = shared.data();
    base += (16 - reinterpret_cast<uintptr_t>(base) % 16) % 16;
    fibers = &pool;
    body = &kernel;
    grid_dim = dim3{grid_x, 1, 1};
    block_dim = dim3{block_x, 1, 1};
    for (unsigned b = 0; b < grid_x && !(errors & ~kMisaligned); ++b) {
        memset(base, 0, shared_bytes);
        memset(base + shared_bytes, kCanary, kGuard);
        shared_base = base;
        block_idx = dim3{b, 1, 1};
        for (unsigned t = 0; t < block_x; ++t) {
            Fiber& f = pool[t];
            getcontext(&f.context);
            f.context.uc_stack.ss_sp = f.stack.data();
            f.context.uc_stack.ss_size = kStack;
            f.context.uc_link = &scheduler;
            f.state = 0;
            makecontext(&f.context, fiber_main, 0);
        }
        for (;;) {
            for (unsigned t = 0; t < block_x; ++t) {
                if (pool[t].state != 0) continue;
                current = static_cast<int>(t);
                thread_idx = dim3{t, 1, 1};
                swapcontext(&scheduler, &pool[t].context);
            }
            unsigned waiting = 0, returned = 0;
            for (unsigned t = 0; t < block_x; ++t) {
                waiting += pool[t].state == 1;
                returned += pool[t].state == 2;
            }
            if (waiting == 0) break;
            if (returned != 0) {
                errors |= kDivergentBarrier;
                break;
            }
            for (unsigned t = 0; t < block_x; ++t) pool[t].state = 0;  // the barrier opens
        }
        for (size_t i = 0; i < kGuard; ++i)
            if (base[shared_bytes + i] != kCanary) errors |= kSharedOverflow;
        for (unsigned t = 0; t < block_x; ++t)  // stacks grow down: the lowest words stay
            for (size_t i = 0; i < 64; ++i)
                if (pool[t].stack[i] != kCanary) errors |= kStackOverflow;
    }
    fibers = nullptr;
    body = nullptr;
    return errors;
}

}  // namespace emu

// ---------------------------------------------------------------- device built-ins
#define __syncthreads() emu::syncthreads()

// A uint4 is loaded with one 16-byte transaction on a GPU, which faults unless the
// address is a multiple of 16: the copy that a load performs checks it.
struct uint4 {
    unsigned int x, y, z, w;
    uint4() = default;
    uint4(const uint4& other) : x(other.x), y(other.y), z(other.z), w(other.w) {
        if (reinterpret_cast<uintptr_t>(&other) % 16 != 0) emu::errors |= emu::kMisaligned;
    }
    uint4& operator=(const uint4& other) = default;
};

inline double __longlong_as_double(long long bits) {
    double out;
    memcpy(&out, &bits, sizeof out);
    return out;
}
inline long long __double_as_longlong(double x) {
    long long out;
    memcpy(&out, &x, sizeof out);
    return out;
}
inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
