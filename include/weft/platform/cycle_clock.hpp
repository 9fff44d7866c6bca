// A cheap monotonic tick counter for the scheduling loop's timing counters (seed 000
// §5.2: HPX times task phases with the time-stamp counter). Ticks convert to
// nanoseconds with a ratio measured against std::chrono::steady_clock.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace weft::detail {

/// The current tick count. On x86 the time-stamp counter (constant-rate and synchronized
/// across cores on every CPU Linux uses it as a clocksource for); on AArch64 the virtual
/// counter; elsewhere steady_clock nanoseconds.
inline std::uint64_t cycle_clock_now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#elif defined(__aarch64__)
    std::uint64_t v;
    asm volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
#endif
}

/// Nanoseconds per tick: the ratio of steady_clock time to ticks elapsed since the first
/// call (which waits 2 ms to have a first measurement). Later calls refine it for free.
double cycle_clock_ns_per_tick() noexcept;

}  // namespace weft::detail
