// Fibonacci as HotSLAW's paper writes it (seed 002 §2.2, Figure 2), on weft::task_queue:
// each call puts its two sub-calls on the queue and waits for them, with the paper's
// CUTOFF below which it runs serially. The result is checked against a serial fib.
//
//   weft_hotslaw_fib [--n=N] [--cutoff=C] [--weft:threads=N] [--weft:scheduler=hierarchical]
//
// Exits 1 when the result is wrong, 2 on a bad option.
#include "example_options.hpp"

#include <weft/weft.hpp>

#include <chrono>
#include <cstdio>

namespace {

weft::task_queue taskq;  // the seed's global `taskq`
int CUTOFF = 10;         // NOLINT: the paper's name

void FIB_serial(int n, long* out) {
    if (n < 2) {
        *out = n;
        return;
    }
    long x = 0;
    long y = 0;
    FIB_serial(n - 1, &x);
    FIB_serial(n - 2, &y);
    *out = x + y;
}

// Figure 2, line for line (the input is copied into the task, as the seed's library
// copies `in`; the output is a pointer, as the seed's `out`).
void FIB(int n, long* out) {
    const int n1 = n - 1;
    const int n2 = n - 2;
    long x = 0;
    long y = 0;
    if (n < CUTOFF) {
        FIB_serial(n, out);
        return;
    }
    taskq.put(FIB, n1, &x);
    taskq.put(FIB, n2, &y);
    taskq.wait();  // runs or steals tasks while waiting
    *out = x + y;
}

}  // namespace

int main(int argc, char** argv) {
    int n = 30;
    weft::examples::options opts("weft_hotslaw_fib", "Fibonacci as HotSLAW's paper writes it, on weft::task_queue");
    opts.number("--n", n, 0, 92, "fib(N) to compute, the last that fits 64 bits is fib(92)")
        .number("--cutoff", CUTOFF, 0, 92, "below it, fib runs serially");
    opts.parse(argc, argv);
    return weft::run(argc, argv, [n](int, char**) {
        const auto t0 = std::chrono::steady_clock::now();
        long result = 0;
        FIB(n, &result);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        long expected = 0;
        FIB_serial(n, &expected);
        std::printf("fib(%d) = %ld with cutoff %d in %.3f s (%s)\n", n, result, CUTOFF, s,
                    result == expected ? "correct" : "WRONG");
        if (result != expected) {
            std::fprintf(stderr, "weft_hotslaw_fib: expected %ld\n", expected);
            return 1;
        }
        return 0;
    });
}
