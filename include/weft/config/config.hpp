// Compiler, platform and build-mode facts every weft layer relies on; the only place
// where weft defines macros.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#  define WEFT_HAVE_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define WEFT_HAVE_ASAN 1
#  endif
#endif
#if defined(__SANITIZE_THREAD__)
#  define WEFT_HAVE_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define WEFT_HAVE_TSAN 1
#  endif
#endif
#ifndef WEFT_HAVE_ASAN
#  define WEFT_HAVE_ASAN 0
#endif
#ifndef WEFT_HAVE_TSAN
#  define WEFT_HAVE_TSAN 0
#endif

#define WEFT_LIKELY(x) __builtin_expect(!!(x), 1)
#define WEFT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define WEFT_NOINLINE __attribute__((noinline))
#define WEFT_ALWAYS_INLINE inline __attribute__((always_inline))

/// Checks an internal invariant in every build mode; a failure is a weft bug, so it
/// prints where and aborts rather than continuing with corrupted state.
#define WEFT_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (WEFT_UNLIKELY(!(cond))) ::weft::detail::assertion_failed(#cond, __FILE__, __LINE__); \
    } while (false)

namespace weft {

/// Size of a destructive-interference unit on the machines weft targets (x86-64, AArch64).
/// std::hardware_destructive_interference_size is not used: g++ warns that it is ABI-unstable.
inline constexpr std::size_t cache_line_size = 64;

namespace detail {

[[noreturn]] inline void assertion_failed(const char* cond, const char* file, int line) noexcept {
    std::fprintf(stderr, "weft: internal assertion '%s' failed at %s:%d\n", cond, file, line);
    std::abort();
}

/// Tells the CPU we are in a spin-wait loop (x86 PAUSE, ARM YIELD).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

/// A full (store-load) fence for Dekker-style hand-shakes: a thread stores X then
/// loads Y, another stores Y then loads X, and at least one must see the other's
/// store. TSan does not model fences (and g++ rejects them under -fsanitize=thread),
/// so there both sides do an acq_rel read-modify-write of one shared word instead:
/// the two RMWs are ordered, and the later one synchronizes with the earlier.
inline void store_load_fence() noexcept {
#if WEFT_HAVE_TSAN
    static std::atomic<unsigned> word{0};
    word.fetch_add(0, std::memory_order_acq_rel);
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace detail
}  // namespace weft
