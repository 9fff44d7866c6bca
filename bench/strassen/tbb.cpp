// Strassen on oneTBB: every step above the size cutoff and below the depth cutoff runs its
// 7 products as tbb::task_group children, waits and combines; deeper steps run serially
// inside their task.
#include "strassen/strassen.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>

int main(int argc, char** argv) {
    namespace st = weft::bench::strassen;
    constexpr const char* impl = "tbb-task_group";
    const st::options o = st::parse_options(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    st::measure(impl, workers, o, [&](const st::product& m) {
        arena.execute([&] { st::multiply<tbb::task_group>(o.p, m, 1); });
    });
    return 0;
}
