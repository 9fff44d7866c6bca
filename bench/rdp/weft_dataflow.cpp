// The R-DP problems as dataflow graphs on weft, seed 001 §5.3.3 (L1053-1181): no fork and
// no join; every base-case kernel is one weft::dataflow task that starts when the tiles
// it reads and the tile it writes are ready, so only the recurrence's dependencies order
// the kernels. The seed expresses the same graph in Intel CnC (Listings 6 and 7: one step
// per kernel, boolean items per tile and step, blocking gets); here each tile's latest
// version is a weft::shared_future<void>, and a kernel's dataflow takes the versions it
// needs, which the futures deliver with the activation instead of CnC's get, abort and
// re-execute.
//
// One task (weft::async) builds the whole graph in the serial order of the tiled loop
// (step K by step K) while the other workers already run the kernels whose inputs are
// ready, then waits for the last version of every tile: the only wait. The base-case
// kernels are those of the recursion (the same tiles, the same (I, J, K) triples, each
// tile's updates in increasing K), so every form computes the same table.
//
// The dependencies, with cur(I, J) the latest version of tile (I, J) and t = n / base:
//   GE, step K, tiles I >= K and J >= K only (the task count is eq. 5.1):
//     A (K, K)  <- cur(K, K)
//     B (K, J)  <- cur(K, J), cur(K, K)                  J > K
//     C (I, K)  <- cur(I, K), cur(K, K)                  I > K
//     D (I, J)  <- cur(I, J), cur(I, K), cur(K, J)       (cur(K, K) is implied through C)
//     Tiles of row and column K are final after step K, so no write follows a read.
//   FW, step K, every tile (t^3 tasks): as GE without the I, J > K restriction, plus
//     write-after-read: tile (I, K) is read by every D of row I at step K and written
//     again at step K+1, so that write also waits for those t - 1 readers (a when_all);
//     likewise tile (K, J) for the Ds of column J, and (K, K) for step K's Bs and Cs.
//   SW: (I, J) <- cur(I-1, J), cur(I, J-1); (I-1, J-1) is implied through either. t^2 tasks.
#include "rdp/fw.hpp"
#include "rdp/ge.hpp"
#include "rdp/sw.hpp"

#include <weft/weft.hpp>

#include <type_traits>
#include <vector>

namespace {

namespace rdp = weft::bench::rdp;
using rdp::idx;
using tile_future = weft::shared_future<void>;
/// The readers of one tile version, joined: a write that follows them waits for this.
using reads_done = weft::shared_future<std::vector<tile_future>>;

/// More pending tasks than this would hold too much memory: the builder runs ahead of
/// the kernels, so nearly every task exists at once (about 550 bytes each, measured
/// with FW: 1M tasks hold ~600 MB).
constexpr std::uint64_t max_tasks = std::uint64_t{1} << 20;

/// The latest version of each of the t x t tiles.
class tile_versions {
public:
    explicit tile_versions(idx t) : t_(t), v_(t * t, weft::make_ready_future().share()) {}

    tile_future& operator()(idx i, idx j) noexcept { return v_[i * t_ + j]; }

    void wait_all() const {
        for (const tile_future& f : v_) f.get();
    }

private:
    idx t_;
    std::vector<tile_future> v_;
};

/// The kernel on tile (I, J) by the pivots of tile K, as a dataflow function: it ignores
/// the (ready) futures it receives.
template <class P>
auto kernel_task(const P& problem, rdp::table<typename P::value_type>& t, idx base, idx i, idx j, idx k) {
    return [&problem, &t, base, i, j, k](auto&&...) noexcept {
        rdp::run_kernel(problem, t, i * base, j * base, k * base, base);
    };
}

void ge_graph(const rdp::ge& p, rdp::table<double>& c, idx base) {
    const idx t = p.n() / base;
    tile_versions cur(t);
    for (idx k = 0; k < t; ++k) {
        cur(k, k) = weft::dataflow(kernel_task(p, c, base, k, k, k), cur(k, k)).share();
        for (idx j = k + 1; j < t; ++j) {
            cur(k, j) = weft::dataflow(kernel_task(p, c, base, k, j, k), cur(k, j), cur(k, k)).share();
        }
        for (idx i = k + 1; i < t; ++i) {
            cur(i, k) = weft::dataflow(kernel_task(p, c, base, i, k, k), cur(i, k), cur(k, k)).share();
        }
        for (idx i = k + 1; i < t; ++i) {
            for (idx j = k + 1; j < t; ++j) {
                cur(i, j) = weft::dataflow(kernel_task(p, c, base, i, j, k), cur(i, j), cur(i, k), cur(k, j)).share();
            }
        }
    }
    cur.wait_all();
}

void fw_graph(const rdp::fw& p, rdp::table<std::int32_t>& d, idx base) {
    const idx t = p.n() / base;
    tile_versions cur(t);
    const reads_done none = weft::make_ready_future(std::vector<tile_future>{}).share();
    std::vector<reads_done> war(t * t, none);  // the readers of the version cur holds
    auto war_at = [&war, t](idx i, idx j) -> reads_done& { return war[i * t + j]; };
    std::vector<tile_future> readers;
    readers.reserve(2 * t);
    for (idx k = 0; k < t; ++k) {
        cur(k, k) = weft::dataflow(kernel_task(p, d, base, k, k, k), cur(k, k), war_at(k, k)).share();
        for (idx j = 0; j < t; ++j) {
            if (j == k) continue;
            cur(k, j) = weft::dataflow(kernel_task(p, d, base, k, j, k), cur(k, j), cur(k, k), war_at(k, j)).share();
        }
        for (idx i = 0; i < t; ++i) {
            if (i == k) continue;
            cur(i, k) = weft::dataflow(kernel_task(p, d, base, i, k, k), cur(i, k), cur(k, k), war_at(i, k)).share();
        }
        for (idx i = 0; i < t; ++i) {
            if (i == k) continue;
            for (idx j = 0; j < t; ++j) {
                if (j == k) continue;
                cur(i, j) = weft::dataflow(kernel_task(p, d, base, i, j, k), cur(i, j), cur(i, k), cur(k, j),
                                           war_at(i, j))
                                .share();
            }
        }
        // Every tile has now consumed the readers it waited for (its write at step k
        // holds them); drop them, then record step k's readers of row and column k.
        if (k > 0) {
            for (idx x = 0; x < t; ++x) {
                war_at(k - 1, x) = none;
                war_at(x, k - 1) = none;
            }
        }
        if (t == 1) continue;
        readers.clear();
        for (idx x = 0; x < t; ++x) {
            if (x == k) continue;
            readers.push_back(cur(k, x));  // the Bs and Cs read (k, k)
            readers.push_back(cur(x, k));
        }
        war_at(k, k) = weft::when_all(readers).share();
        for (idx j = 0; j < t; ++j) {  // the Ds of column j read (k, j)
            if (j == k) continue;
            readers.clear();
            for (idx i = 0; i < t; ++i) {
                if (i != k) readers.push_back(cur(i, j));
            }
            war_at(k, j) = weft::when_all(readers).share();
        }
        for (idx i = 0; i < t; ++i) {  // the Ds of row i read (i, k)
            if (i == k) continue;
            readers.clear();
            for (idx j = 0; j < t; ++j) {
                if (j != k) readers.push_back(cur(i, j));
            }
            war_at(i, k) = weft::when_all(readers).share();
        }
    }
    cur.wait_all();
}

void sw_graph(const rdp::sw& p, rdp::table<std::int32_t>& h, idx base) {
    const idx t = p.n() / base;
    tile_versions cur(t);  // ready: the boundary row and column need nothing
    const tile_future ready = cur(0, 0);
    for (idx i = 0; i < t; ++i) {
        for (idx j = 0; j < t; ++j) {
            cur(i, j) = weft::dataflow(kernel_task(p, h, base, i, j, 0), i > 0 ? cur(i - 1, j) : ready,
                                       j > 0 ? cur(i, j - 1) : ready)
                            .share();
        }
    }
    cur.wait_all();
}

void graph(const rdp::ge& p, rdp::table<double>& c, idx base) { ge_graph(p, c, base); }
void graph(const rdp::fw& p, rdp::table<std::int32_t>& d, idx base) { fw_graph(p, d, base); }
void graph(const rdp::sw& p, rdp::table<std::int32_t>& h, idx base) { sw_graph(p, h, base); }

/// Tasks and fan-ins (when_all) of the graph: one task per base case; FW adds, per step,
/// one when_all per tile of row and column k (none for a single tile).
template <class P>
rdp::form_counts dataflow_counts(const rdp::options& o) {
    rdp::form_counts c;
    c.tasks = P::base_calls(o.n, o.base);
    const std::uint64_t t = o.n / o.base;
    if (std::is_same_v<P, rdp::fw> && t > 1) c.fanins = t * (2 * t - 1);
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W
    const rdp::options o = rdp::parse_options(argc, argv);
    rdp::with_problem<rdp::ge, rdp::sw, rdp::fw>(o, [&o, &rt, argv]<class P>() {
        const rdp::form_counts counts = dataflow_counts<P>(o);
        if (counts.tasks > max_tasks) {
            std::fprintf(stderr, "%s: --n=%zu --base=%zu makes %llu dataflow tasks, more than %llu: use a larger --base\n",
                         argv[0], o.n, o.base, static_cast<unsigned long long>(counts.tasks),
                         static_cast<unsigned long long>(max_tasks));
            std::exit(2);
        }
        rdp::measure<P>("weft-dataflow", rt.num_workers(), o, rdp::form::dataflow, counts, [&o](const P& problem, auto& t) {
            weft::async([&] { graph(problem, t, o.base); }).get();
        });
    });
    return 0;
}
