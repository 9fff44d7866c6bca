// INNCABS Alignment (seed 000 Table 7: loop-like, no synchronisation, coarse: ~2.7 ms per
// task): BOTS's pairwise protein alignment (bench/alignment/alignment.hpp has the
// algorithm, the generated sequences and the deviations from BOTS): one async per pair of
// sequences, launched row by row, then every future waited for, as the original suite
// does. Size: --nseqs=N (default 100, the suite's standard input prot.100.aa: 4,950
// tasks, Table 3's; its sequences are generated here). Checks every pair against a serial
// run (which also checks each alignment against itself), done once before the runs.
// Small input: --nseqs=8 (28 tasks).
//
// Stack: a pair keeps its alignment's arrays on the stack, as the original does (up to
// ~1.1 MB: the script, and four rows per level of Myers-Miller's recursion). An OS
// thread (std::async) has 8 MiB; a weft task 128 KiB by default, so the weft build runs
// with --weft:stack-size=2M (bench/inncabs/run and the CI test pass it): the port stays
// mechanical, and without the option weft stops with "stack overflow in task ...; raise
// --weft:stack-size". (The seed's HPX port moved the arrays to the heap instead, L1073.)
#include "inncabs/inncabs.hpp"

#include "alignment/alignment.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace al = weft::bench::alignment;

int align_task(const al::scoring* sc, const al::sequence_set* s, int si, int sj) {
    return al::align_pair(*sc, *s, si, sj);
}

std::vector<int> pairalign(const al::scoring& sc, const al::sequence_set& s, const inncabs::launch l) {
    const int n = s.count();
    std::vector<int> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    std::vector<inncabs::future<int>> pairs;
    pairs.reserve(static_cast<std::size_t>(al::pair_count(n)));
    for (int si = 0; si < n; ++si) {
        for (int sj = si + 1; sj < n; ++sj) pairs.push_back(inncabs::async(l, align_task, &sc, &s, si, sj));
    }
    std::size_t next = 0;
    for (int si = 0; si < n; ++si) {
        for (int sj = si + 1; sj < n; ++sj) out[static_cast<std::size_t>(si * n + sj)] = pairs[next++].get();
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int nseqs = 100;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs alignment: pairwise alignment of a protein set, an async per pair",
        {{"nseqs", "generated sequences, 2 to 1000 (default 100, as prot.100.aa)",
          [&nseqs](std::string_view v) { return inncabs::parse_number(v, nseqs, 2, 1000); }}});
    const al::scoring sc = al::make_scoring();
    const al::sequence_set s = al::generate(nseqs);
    const std::vector<int> expected = al::align_all_checked(sc, s, "inncabs alignment");
    return inncabs::run(
        "alignment", o, std::to_string(nseqs), al::pair_count(nseqs), [&] { return pairalign(sc, s, o.policy); },
        [&expected](const std::vector<int>& r) {
            const bool ok = r == expected;
            return inncabs::verdict{ok, ok ? std::to_string(al::checksum(r))
                                           : std::to_string(al::checksum(r)) + " != " + std::to_string(al::checksum(expected))};
        });
}
