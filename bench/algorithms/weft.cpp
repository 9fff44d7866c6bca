// reduce, inclusive_scan and sort on weft's parallel algorithms with plain
// weft::execution::par (its default chunking, auto_chunk_size): weft::reduce,
// weft::inclusive_scan and weft::sort. The calls run in one weft task, so the calling
// thread is one of the --weft:threads workers (as the caller is in the oneTBB arena) and
// no call pays the hop from a foreign thread onto a worker. --workers is not used by
// weft: scripts/algorithms passes --weft:threads=N as well.
#include "algorithms/common.hpp"

#include <weft/algorithms/inclusive_scan.hpp>
#include <weft/algorithms/reduce.hpp>
#include <weft/algorithms/sort.hpp>
#include <weft/weft.hpp>

namespace {

namespace al = weft::bench::algorithms;
using al::value_type;

struct weft_algorithms {
    bool has(al::algorithm) const { return true; }
    value_type reduce(const value_type* first, const value_type* last) const {
        return weft::reduce(weft::execution::par, first, last, value_type{0});
    }
    void inclusive_scan(const value_type* first, const value_type* last, value_type* out) const {
        weft::inclusive_scan(weft::execution::par, first, last, out);
    }
    void sort(value_type* first, value_type* last) const { weft::sort(weft::execution::par, first, last); }
};

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W (scripts/algorithms passes it)
    const al::problem p = al::parse_problem(argc, argv);
    weft_algorithms a;
    al::run("weft-par", rt.num_workers(), p, a, [](auto&& body) { weft::async([&body] { body(); }).get(); });
    return 0;
}
