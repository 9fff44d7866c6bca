// Alignment on oneTBB: the calling thread, inside the arena, runs one tbb::task_group
// child per pair of sequences, in BOTS's order (row by row), and waits for them. Each
// child keeps its alignment's arrays on its stack (~1.1 MB at most, alignment.hpp): the
// workers' stacks are set to 4 MiB (oneTBB's default on 64-bit systems, stated here).
#include "alignment/alignment.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <vector>

int main(int argc, char** argv) {
    namespace al = weft::bench::alignment;
    constexpr const char* impl = "tbb-task_group";
    const al::options o = al::parse_options(argc, argv);

    const tbb::global_control stack(tbb::global_control::thread_stack_size, std::size_t{4} << 20);
    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    al::measure(impl, workers, o, [&arena](const al::scoring& sc, const al::sequence_set& s, std::vector<int>& out) {
        arena.execute([&] {
            const int n = s.count();
            tbb::task_group g;
            for (int si = 0; si < n; ++si) {
                for (int sj = si + 1; sj < n; ++sj) {
                    g.run([&sc, &s, &out, n, si, sj] {
                        out[static_cast<std::size_t>(si * n + sj)] = al::align_pair(sc, s, si, sj);
                    });
                }
            }
            g.wait();
        });
    });
    return 0;
}
