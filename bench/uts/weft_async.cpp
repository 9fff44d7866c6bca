// UTS on weft with futures, one task per node and no cutoff (issue #22): a node's task
// starts one weft::async per child node (whose state it derives before the spawn), then
// get()s their futures in the order it started them and adds up the counts. This is the
// shape a program written with async + get takes, and the one that makes tasks suspend:
// the first get() waits on the oldest child, which is not the newest task on the worker's
// queue, so it cannot be run inline; the node suspends on its stack while the worker runs
// the younger children. The number of suspended tasks swings by thousands as the search
// goes down and back up the tree, which is what the runtime's stack pool has to follow.
// bench/uts/weft.cpp is the fork-join version (task_group, children taken back inline).
#include "uts/uts_tree.hpp"

#include <weft/weft.hpp>

#include <cstdint>
#include <memory>

namespace {

namespace ut = weft::bench::uts;

/// A node's children's futures: on the stack up to 16 (a node of T1 or T3 has 4 or 8 on
/// average), else on the heap (T3's root has 2000).
class child_futures {
public:
    explicit child_futures(int n) {
        if (n > inline_count) {
            heap_ = std::make_unique<weft::future<std::uint64_t>[]>(static_cast<std::size_t>(n));
            data_ = heap_.get();
        }
    }
    child_futures(const child_futures&) = delete;
    child_futures& operator=(const child_futures&) = delete;

    weft::future<std::uint64_t>& operator[](int i) noexcept { return data_[i]; }

private:
    static constexpr int inline_count = 16;
    weft::future<std::uint64_t> local_[inline_count];
    std::unique_ptr<weft::future<std::uint64_t>[]> heap_;
    weft::future<std::uint64_t>* data_ = local_;
};

std::uint64_t count(const ut::tree& t, const ut::node& n) {
    const int children = ut::num_children(t, n);
    if (children == 0) return 1;
    child_futures f(children);
    for (int i = 0; i < children; ++i)
        f[i] = weft::async([&t, child = ut::derive_child(n, i)] { return count(t, child); });
    std::uint64_t nodes = 1;
    for (int i = 0; i < children; ++i) nodes += f[i].get();
    return nodes;
}

}  // namespace

int main(int argc, char** argv) {
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const ut::options o = ut::parse_options(argc, argv);
    const ut::tree& t = *o.t;
    ut::measure("weft-async", rt.num_workers(), o,
                [&] { return weft::async([&t] { return count(t, ut::make_root(t)); }).get(); });
    return 0;
}
