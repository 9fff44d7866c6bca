// STREAM on weft's parallel algorithms: weft::copy and weft::transform (unary and binary)
// per kernel, weft::fill with the same policy for the first touch.
//   weft-static  par.with(static_chunk_size()): one contiguous chunk per worker, as
//                OpenMP's schedule(static)
//   weft-auto    par, whose default parameter is auto_chunk_size: it times the first
//                iterations on the caller, then deals chunks of about 50 us dynamically
// --variant=static|auto|all (default all) picks the variants; each one allocates and
// first-touches its own arrays (and frees them before the next). The iterations run in
// one weft task, so the calling thread is one of the --weft:threads workers, as OpenMP's
// master thread is in its team and the caller in the oneTBB arena. --workers is not used
// by weft: its worker count comes from --weft:threads=N (scripts/stream passes both).
#include "stream/common.hpp"

#include <weft/algorithms.hpp>
#include <weft/weft.hpp>

#include <cstddef>
#include <cstdio>
#include <string_view>

namespace {

namespace sm = weft::bench::stream;

template <class Policy>
struct weft_kernels {
    Policy policy;

    void fill(double* x, std::size_t n, double v) const { weft::fill(policy, x, x + n, v); }
    void copy(const double* a, double* c, std::size_t n) const { weft::copy(policy, a, a + n, c); }
    void scale(const double* c, double* b, std::size_t n) const {
        weft::transform(policy, c, c + n, b, [](double x) { return sm::scalar * x; });
    }
    void add(const double* a, const double* b, double* c, std::size_t n) const {
        weft::transform(policy, a, a + n, b, c, [](double x, double y) { return x + y; });
    }
    void triad(const double* b, const double* c, double* a, std::size_t n) const {
        weft::transform(policy, b, b + n, c, a, [](double x, double y) { return x + sm::scalar * y; });
    }
};

template <class Policy>
void run_variant(const char* impl, unsigned workers, const sm::problem& p, Policy policy) {
    weft_kernels<Policy> k{policy};
    sm::run(impl, workers, p, k, [](auto&& body) { weft::async([&body] { body(); }).get(); });
}

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/stream passes it)
    bool run_static = true;
    bool run_auto = true;
    const sm::problem p = sm::parse_problem(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            if (name != "--variant") return false;
            run_static = v == "static" || v == "all";
            run_auto = v == "auto" || v == "all";
            return run_static || run_auto;
        },
        "  --variant=V  static (par.with(static_chunk_size())), auto (par) or all (default)\n");

    const unsigned workers = rt.num_workers();
    if (run_static) {
        run_variant("weft-static", workers, p, weft::execution::par.with(weft::execution::static_chunk_size()));
    }
    if (run_auto) run_variant("weft-auto", workers, p, weft::execution::par);
    return 0;
}
