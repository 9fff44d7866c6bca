// fib(n) by plain recursion: the floor that every task-parallel fib is measured against.
#include "common/bench_common.hpp"

#include <cstdint>

namespace {

std::uint64_t fib(unsigned n) {
    if (n < 2) {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

}  // namespace

int main(int argc, char** argv) {
    namespace wb = weft::bench;
    wb::options const o = wb::parse_options(argc, argv);
    std::uint64_t const expected = wb::fib_expected(o.n);
    std::uint64_t result = 0;

    (void)wb::time_seconds([&] { result = fib(o.n); });  // warm-up
    if (result != expected) {
        wb::fail_check("fib", "serial", result, expected);
    }
    for (unsigned rep = 0; rep < o.reps; ++rep) {
        result = 0;
        double const seconds = wb::time_seconds([&] { result = fib(o.n); });
        if (result != expected) {
            wb::fail_check("fib", "serial", result, expected);
        }
        // One thread whatever --workers says: the line reports what ran.
        wb::print_result("fib", "serial", 1, o.n, wb::fib_calls(o.n), seconds, result);
    }
    return 0;
}
