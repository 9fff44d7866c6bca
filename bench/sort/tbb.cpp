// Sort on oneTBB: the recursion of sort.hpp on tbb::task_group, one group per step: four
// sorts, wait, two merges, wait, the last merge in the caller; every merge step above the
// cutoff runs its two halves as children and waits for them.
#include "sort/sort.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>

int main(int argc, char** argv) {
    namespace srt = weft::bench::sort;
    constexpr const char* impl = "tbb-task_group";
    const srt::options o = srt::parse_options(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    srt::measure(impl, workers, o, [&](bool counting, const srt::sort_range& r) {
        arena.execute([&] {
            if (counting) srt::sort<srt::counted<tbb::task_group>>(o.cut, r);
            else srt::sort<tbb::task_group>(o.cut, r);
        });
    });
    return 0;
}
