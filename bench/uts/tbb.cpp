// UTS on oneTBB, one task per node and no cutoff: a node runs one tbb::task_group child per
// child node (whose state the parent derives first), waits and adds up the counts the
// children left in their own slots.
#include "uts/uts_tree.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace {

namespace ut = weft::bench::uts;

std::uint64_t count(const ut::tree& t, const ut::node& n) { return ut::count_fork_join<tbb::task_group>(t, n); }

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = "tbb-task_group";
    const ut::options o = ut::parse_options(argc, argv);
    const ut::tree& t = *o.t;

    // A deep tree needs deep stacks: the workers' and the calling thread's (see uts_tree.hpp).
    const std::size_t stack = ut::stack_bytes(t);
    std::optional<tbb::global_control> worker_stack;
    if (stack != 0) worker_stack.emplace(tbb::global_control::thread_stack_size, stack);

    ut::run_with_stack(stack, [&] {
        // The arena's slot for the calling thread counts as one of the --workers.
        const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                        static_cast<std::size_t>(o.workers));
        tbb::task_arena arena(static_cast<int>(o.workers));
        arena.initialize();
        const auto workers = static_cast<unsigned>(arena.max_concurrency());

        ut::measure(impl, workers, o, [&] {
            std::uint64_t nodes = 0;
            arena.execute([&] { nodes = count(t, ut::make_root(t)); });
            return nodes;
        });
    });
    return 0;
}
