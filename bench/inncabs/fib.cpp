// INNCABS Fib (seed 000 Table 7: recursive, balanced, very fine): the naive doubly
// recursive Fibonacci, one async per call, the launch policy passed down the recursion.
// Sizes: --n=N (default 30, the suite's; small 20). Checks against the closed loop.
#include "inncabs/inncabs.hpp"

#include <cstdint>
#include <string>

namespace {

std::uint64_t fib(unsigned n, const inncabs::launch l) {
    if (n < 2) return n;
    inncabs::future<std::uint64_t> a = inncabs::async(l, fib, n - 1, l);
    inncabs::future<std::uint64_t> b = inncabs::async(l, fib, n - 2, l);
    return a.get() + b.get();
}

std::uint64_t fib_loop(unsigned n) {
    std::uint64_t a = 0, b = 1;
    for (unsigned i = 0; i < n; ++i) {
        const std::uint64_t c = a + b;
        a = b;
        b = c;
    }
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned n = 30;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs fib: naive recursive Fibonacci, an async per call",
        {{"n", "a number from 1 to 60", [&n](std::string_view v) { return inncabs::parse_number(v, n, 1u, 60u); }}});
    const std::uint64_t expected = fib_loop(n);
    const std::uint64_t tasks = 2 * fib_loop(n + 1) - 2;  // every call but the root's
    return inncabs::run(
        "fib", o, std::to_string(n), tasks, [&] { return fib(n, o.policy); },
        [expected](std::uint64_t r) {
            return inncabs::verdict{r == expected, r == expected ? std::to_string(r)
                                                                 : std::to_string(r) + " != " + std::to_string(expected)};
        });
}
