// weft::ttg across localities (issue #26), run by ctest under mpirun at 1, 2 and 4 ranks.
// Every locality builds the same graph (SPMD); keys live where the keymaps say, so
// messages, broadcasts, stream values, stream ends, invocations and pulls cross
// localities. Results are summed over localities (all_reduce) and checked against
// serial sums; an exception thrown on one locality reaches that locality's fence().
//   ttg spmd --weft:spmd   inside weft::run
//   ttg initialize         ttg::initialize / ttg::finalize around main's code
//   ttg not-spmd           inside weft::run without --weft:spmd: several localities are
//                          refused with a message (one works)
#include <weft/distributed.hpp>
#include <weft/ttg.hpp>
#include <weft/weft.hpp>

#include "check.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace ttg = weft::ttg;
namespace wc = weft::collectives;

std::uint64_t sum_over_localities(std::uint64_t mine) { return wc::all_reduce(mine, std::plus<>{}).get(); }

/// Two producers on different localities feed a join on a third (by keymap).
void check_join() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    ttg::Edge<int, std::uint64_t> a("a"), b("b");
    std::atomic<std::uint64_t> got{0}, where_wrong{0};
    auto pa = ttg::make_tt<int>(
        [](const int& k, std::tuple<ttg::Out<int, std::uint64_t>>& out) { ttg::send<0>(k, std::uint64_t(k) * 3, out); },
        ttg::edges(), ttg::edges(a), "pa");
    auto pb = ttg::make_tt<int>(
        [](const int& k, std::tuple<ttg::Out<int, std::uint64_t>>& out) { ttg::send<0>(k, std::uint64_t(k) + 1, out); },
        ttg::edges(), ttg::edges(b), "pb");
    auto join = ttg::make_tt(
        [&, n](const int& k, std::uint64_t x, std::uint64_t y, std::tuple<>&) {
            if (static_cast<std::uint32_t>(k + 2) % n != weft::get_locality_id()) ++where_wrong;
            got += x * y;
        },
        ttg::edges(a, b), ttg::edges(), "join");
    pa->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k) % n; });
    pb->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k + 1) % n; });
    join->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k + 2) % n; });
    ttg::make_graph_executable(pa, pb);
    ttg::execute();
    // Each locality invokes a share of the keys, most of them owned elsewhere.
    constexpr int keys = 2000;
    for (int k = static_cast<int>(me); k < keys; k += static_cast<int>(n)) {
        pa->invoke(k);
        pb->invoke(k);
    }
    ttg::fence();
    std::uint64_t want = 0;
    for (int k = 0; k < keys; ++k) want += std::uint64_t(k) * 3 * (std::uint64_t(k) + 1);
    CHECK(sum_over_localities(got.load()) == want);
    CHECK(where_wrong.load() == 0);
}

/// Move-only values (std::unique_ptr) cross localities; some reach a template task before
/// it is executable there (it is made executable only after a collective), so they are
/// queued as move-only messages.
void check_move_only() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    using box = std::unique_ptr<std::uint64_t>;
    ttg::Edge<int, box> e("boxes");
    std::atomic<std::uint64_t> got{0};
    auto make = ttg::make_tt<int>(
        [](const int& k, std::tuple<ttg::Out<int, box>>& out) { ttg::send<0>(k, std::make_unique<std::uint64_t>(static_cast<std::uint64_t>(k) * 5), out); },
        ttg::edges(), ttg::edges(e), "make-box");
    auto open = ttg::make_tt([&got](const int&, box&& b, std::tuple<>&) { got += *b; }, ttg::edges(e), ttg::edges(),
                             "open-box");
    make->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k) % n; });
    open->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k + 1) % n; });
    ttg::make_graph_executable(make);  // open-box becomes executable with it, later on some
    constexpr int keys = 600;
    for (int k = static_cast<int>(me); k < keys; k += static_cast<int>(n)) make->invoke(k);
    ttg::fence();
    std::uint64_t want = 0;
    for (int k = 0; k < keys; ++k) want += static_cast<std::uint64_t>(k) * 5;
    CHECK(sum_over_localities(got.load()) == want);
}

/// A chain whose every hop changes locality; a broadcast to keys everywhere; streams fed
/// from every locality, ended by count, by size and by finalize from afar.
void check_chain_broadcast_streams() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    ttg::Edge<int, std::uint64_t> hop("hop");
    std::atomic<std::uint64_t> chain_end{0};
    auto step = ttg::make_tt(
        [](const int& k, std::uint64_t acc, std::tuple<ttg::Out<int, std::uint64_t>>& out) {
            if (k < 500) ttg::send<0>(k + 1, acc + static_cast<std::uint64_t>(k), out);
        },
        ttg::edges(hop), ttg::edges(hop), "step");
    auto last = [&chain_end](const int& k, std::uint64_t acc, std::tuple<>&) {
        if (k == 500) chain_end = acc;
    };
    auto watch = ttg::make_tt(last, ttg::edges(hop), ttg::edges(), "watch");
    step->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k) % n; });
    watch->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k) % n; });

    ttg::Edge<int, double> bc("bc");
    std::atomic<std::uint64_t> bc_sum{0};
    auto root = ttg::make_tt<int>(
        [](const int&, std::tuple<ttg::Out<int, double>>& out) {
            std::vector<int> ks(257);
            std::iota(ks.begin(), ks.end(), 0);
            ttg::broadcast<0>(ks, 4.0, out);
        },
        ttg::edges(), ttg::edges(bc), "root");
    auto leaf = ttg::make_tt([&bc_sum](const int& k, const double& v, std::tuple<>&) { bc_sum += static_cast<std::uint64_t>(v) * static_cast<std::uint64_t>(k); },
                             ttg::edges(bc), ttg::edges(), "leaf");

    ttg::Edge<int, int> counted("counted"), sized("sized"), ended("ended");
    std::atomic<std::uint64_t> streams{0};
    auto feed = ttg::make_tt<int>(
        [n](const int& k, std::tuple<ttg::Out<int, int>, ttg::Out<int, int>, ttg::Out<int, int>>& out) {
            // Key k of each stream gets one value from every locality (this instance is
            // one of them: feed's keys are (locality, k) packed as k * n + locality).
            const int key = k / static_cast<int>(n);
            ttg::send<0>(key, 1, out);
            ttg::send<1>(key, 2, out);
            ttg::send<2>(key, 3, out);
        },
        ttg::edges(), ttg::edges(counted, sized, ended), "feed");
    feed->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k) % n; });
    auto add = [&streams](const int&, int total, std::tuple<>&) { streams += static_cast<std::uint64_t>(total); };
    auto by_count = ttg::make_tt(add, ttg::edges(counted), ttg::edges(), "by-count");
    auto by_size = ttg::make_tt(add, ttg::edges(sized), ttg::edges(), "by-size");
    auto by_end = ttg::make_tt(add, ttg::edges(ended), ttg::edges(), "by-end");
    const auto plus = [](int& acc, int&& v) { acc += v; };
    by_count->set_input_reducer<0>(plus, n);
    by_size->set_input_reducer<0>(plus);
    by_end->set_input_reducer<0>(plus);
    ttg::make_graph_executable(step, root, feed);
    ttg::execute();
    constexpr int stream_keys = 40;
    if (me == 0) {
        step->invoke(0, std::uint64_t{0});
        root->invoke(0);
        for (int key = 0; key < stream_keys; ++key) by_size->set_argstream_size<0>(key, n);  // from locality 0, wherever
    }
    for (int key = 0; key < stream_keys; ++key) feed->invoke(key * static_cast<int>(n) + static_cast<int>(me));
    ttg::fence();
    // The values are in: end the third streams (from the last locality, wherever they live).
    if (me == n - 1)
        for (int key = 0; key < stream_keys; ++key) by_end->finalize_argstream<0>(key);
    ttg::fence();
    CHECK(sum_over_localities(chain_end.load()) == 499ull * 500 / 2);
    CHECK(sum_over_localities(bc_sum.load()) == 4ull * 256 * 257 / 2);
    CHECK(sum_over_localities(streams.load()) == std::uint64_t(stream_keys) * n * (1 + 2 + 3));
}

/// Pulled data lives on one locality and is read by instances on another.
void check_pull() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    constexpr int keys = 300;
    // This locality's part: keys k with k % n == me, at k / n.
    std::vector<std::uint64_t> part;
    for (int k = static_cast<int>(me); k < keys; k += static_cast<int>(n)) part.push_back(std::uint64_t(k) * 7);
    std::atomic<std::uint64_t> got{0};
    for (const bool lazy : {false, true}) {
        ttg::Edge<int, std::uint64_t> data("data", true, part, [n](int k) { return static_cast<std::size_t>(k) / n; },
                                           [n](int k) { return static_cast<std::uint32_t>(k) % n; }, lazy);
        ttg::Edge<int, std::uint64_t> go("go");
        auto src = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, std::uint64_t>>& out) { ttg::send<0>(k, std::uint64_t{2}, out); },
            ttg::edges(), ttg::edges(go), "src");
        auto use = ttg::make_tt([&got](const int&, std::uint64_t d, std::uint64_t m, std::tuple<>&) { got += d * m; },
                                ttg::edges(data, go), ttg::edges(), "use");
        use->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k + 1) % n; });  // never the data's
        src->set_keymap([n](const int& k) { return static_cast<std::uint32_t>(k + 1) % n; });
        ttg::make_graph_executable(src);
        if (me == 0)
            for (int k = 0; k < keys; ++k) src->invoke(k);
        ttg::fence();
    }
    std::uint64_t want = 0;
    for (int k = 0; k < keys; ++k) want += std::uint64_t(k) * 7 * 2;
    CHECK(sum_over_localities(got.load()) == 2 * want);
}

/// A body that throws on the last locality: that locality's fence throws it.
void check_exceptions() {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    auto t = ttg::make_tt<int>(
        [](const int& k, std::tuple<>&) {
            if (k == 5) throw std::invalid_argument("five on locality " + std::to_string(weft::get_locality_id()));
        },
        ttg::edges(), ttg::edges(), "thrower");
    t->set_keymap([n](const int&) { return n - 1; });
    if (me == 0)
        for (int k = 0; k < 10; ++k) t->invoke(k);
    const auto what = weft_test::thrown<std::invalid_argument>([] { ttg::fence(); });
    if (me == n - 1) CHECK(what && *what == "five on locality " + std::to_string(n - 1));
    else CHECK(!what);
}

void trace(const char* what) {
    if (std::getenv("WEFT_TTG_TEST_TRACE") != nullptr) std::fprintf(stderr, "locality %u: %s\n", weft::get_locality_id(), what);
}

int run_checks() {
    trace("join");
    check_join();
    trace("chain, broadcast, streams");
    check_chain_broadcast_streams();
    trace("move-only");
    check_move_only();
    trace("pull");
    check_pull();
    trace("exceptions");
    check_exceptions();
    trace("done");
    const std::uint64_t all = sum_over_localities(ttg::tasks_run());
    CHECK(all > 0);
    return weft_test::failures;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "spmd";
    if (mode == "initialize") {
        ttg::initialize(argc, argv);
        const int failed = run_checks();
        ttg::finalize();
        std::printf("ttg initialize: locality done, %d failures\n", failed);
        return failed;
    }
    if (mode == "not-spmd") {
        return weft::run(argc, argv, [](int, char**) -> int {
            const auto what = weft_test::thrown<weft::error>([] {
                auto t = ttg::make_tt<int>([](const int&, std::tuple<>&) {}, ttg::edges(), ttg::edges(), "lonely");
                t->invoke(1);
                ttg::fence();
            });
            if (weft::get_num_localities() > 1) CHECK(what && what->find("--weft:spmd") != std::string::npos);
            else CHECK(!what);
            std::printf("ttg not-spmd: done, %d failures\n", weft_test::failures);
            return weft_test::failures;
        });
    }
    if (mode != "spmd") {
        std::fprintf(stderr, "usage: ttg [spmd|initialize|not-spmd] [--weft:...]\n");
        return 2;
    }
    return weft::run(argc, argv, [](int, char**) -> int {
        const int failed = run_checks();
        std::printf("ttg spmd: locality %u done, %d failures\n", weft::get_locality_id(), failed);
        return failed;
    });
}
