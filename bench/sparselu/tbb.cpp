// SparseLU on oneTBB: the producer (the calling thread, inside the arena) factors each
// diagonal block itself, then runs one tbb::task_group child per fwd and bdiv, waits, one
// child per bmod (allocating fill-in blocks as it goes), and waits before the next
// diagonal block.
#include "sparselu/sparselu.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>

int main(int argc, char** argv) {
    namespace slu = weft::bench::sparselu;
    constexpr const char* impl = "tbb-task_group";
    const slu::options o = slu::parse_options(argc, argv);

    // The arena's slot for the calling thread counts as one of the --workers.
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(o.workers));
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    const auto workers = static_cast<unsigned>(arena.max_concurrency());

    slu::measure(impl, workers, o, [&arena](slu::matrix& a) {
        arena.execute([&a] { slu::factor<tbb::task_group>(a); });
    });
    return 0;
}
