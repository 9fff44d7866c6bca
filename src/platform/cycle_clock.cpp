// Tick-to-nanosecond ratio of the cycle clock (see include/weft/platform/cycle_clock.hpp).
#include <weft/platform/cycle_clock.hpp>

#include <thread>

namespace weft::detail {

double cycle_clock_ns_per_tick() noexcept {
    using clock = std::chrono::steady_clock;
    struct origin_t {
        clock::time_point wall = clock::now();
        std::uint64_t ticks = cycle_clock_now();
    };
    static const origin_t origin;
    // Over at least 2 ms, steady_clock's nanosecond resolution bounds the error of the
    // ratio by about 1e-6; the longer the program has run, the better it gets.
    auto wall = clock::now();
    while (wall - origin.wall < std::chrono::milliseconds(2)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2) - (wall - origin.wall));
        wall = clock::now();
    }
    const std::uint64_t ticks = cycle_clock_now();
    if (ticks <= origin.ticks) return 1.0;  // a clock that did not move: treat ticks as ns
    const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall - origin.wall).count());
    return ns / static_cast<double>(ticks - origin.ticks);
}

}  // namespace weft::detail
