// Alignment on weft: one weft task (the producer) runs one weft::task_group child per
// pair of sequences, in BOTS's order (row by row), and joins them. Each child keeps its
// alignment's arrays on its stack (~1.1 MB at most, alignment.hpp), so it asks for
// al::task_stack_bytes (2 MiB) through task_attributes::stack_size: it then runs on a
// stack of its own, mapped for it, and is never run inline on a smaller one.
#include "alignment/alignment.hpp"

#include <weft/weft.hpp>

#include <cstddef>
#include <vector>

int main(int argc, char** argv) {
    namespace al = weft::bench::alignment;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const al::options o = al::parse_options(argc, argv);
    al::measure("weft-fork_join", rt.num_workers(), o,
                [](const al::scoring& sc, const al::sequence_set& s, std::vector<int>& out) {
                    weft::async([&] {
                        weft::task_attributes big;
                        big.stack_size = al::task_stack_bytes;
                        const int n = s.count();
                        weft::task_group g;
                        for (int si = 0; si < n; ++si) {
                            for (int sj = si + 1; sj < n; ++sj) {
                                g.run(big, [&sc, &s, &out, n, si, sj] {
                                    out[static_cast<std::size_t>(si * n + sj)] = al::align_pair(sc, s, si, sj);
                                });
                            }
                        }
                        g.wait();
                    }).get();
                });
    return 0;
}
