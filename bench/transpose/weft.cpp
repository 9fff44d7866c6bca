// The transpose on weft: weft::for_each over a vector of the flat tile indices 0 ..
// tiles^2 - 1 (row-major: tile t is (t / tiles, t % tiles)), per iteration and for the
// first touch. (Not std::views::iota(size_t): its iterator is not a C++17 iterator,
// and weft's algorithms count a range with std::distance.)
//   weft-static  par.with(static_chunk_size()): one contiguous run of tiles per worker,
//                as OpenMP's schedule(static) over the rows of tiles
//   weft-auto    par (auto_chunk_size): times the first tiles on the caller, then deals
//                chunks of about 50 us dynamically
// --variant=static|auto|all (default all); each variant allocates and first-touches its
// own matrices. The iterations run in one weft task, so the calling thread is one of
// the --weft:threads workers (as OpenMP's master thread is in its team). --workers is not
// used by weft: scripts/transpose passes --weft:threads=N as well.
#include "transpose/common.hpp"

#include <weft/algorithms/for_each.hpp>
#include <weft/weft.hpp>

#include <cstddef>
#include <numeric>
#include <string_view>
#include <vector>

namespace {

namespace tr = weft::bench::transpose;

template <class Policy>
struct weft_tiles {
    Policy policy;
    std::vector<std::size_t> ids;  ///< 0 .. tiles^2 - 1, made by the first loop

    template <class Body>
    void for_tiles(std::size_t tiles, const Body& body) {
        if (ids.size() != tiles * tiles) {
            ids.resize(tiles * tiles);
            std::iota(ids.begin(), ids.end(), std::size_t{0});
        }
        weft::for_each(policy, ids.begin(), ids.end(), [&body, tiles](std::size_t t) { body(t / tiles, t % tiles); });
    }
};

template <class Policy>
void run_variant(const char* impl, unsigned workers, const tr::problem& p, Policy policy) {
    weft_tiles<Policy> t{policy, {}};
    tr::run(impl, workers, p, t, [](auto&& body) { weft::async([&body] { body(); }).get(); });
}

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/transpose passes it)
    bool run_static = true;
    bool run_auto = true;
    const tr::problem p = tr::parse_problem(
        argc, argv,
        [&](std::string_view name, std::string_view v) {
            if (name != "--variant") return false;
            run_static = v == "static" || v == "all";
            run_auto = v == "auto" || v == "all";
            return run_static || run_auto;
        },
        "  --variant=V     static (par.with(static_chunk_size())), auto (par) or all (default)\n");

    const unsigned workers = rt.num_workers();
    if (run_static) {
        run_variant("weft-static", workers, p, weft::execution::par.with(weft::execution::static_chunk_size()));
    }
    if (run_auto) run_variant("weft-auto", workers, p, weft::execution::par);
    return 0;
}
