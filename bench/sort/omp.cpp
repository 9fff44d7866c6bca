// Sort on OpenMP tasks, as BOTS runs it: one thread of the team (`omp single`) starts the
// recursion; every sort step makes four `omp task untied` sorts, `omp taskwait`s, two
// merge tasks, `omp taskwait`s and runs the last merge itself; every merge step above the
// cutoff makes its two halves tasks and `omp taskwait`s. The steps are sort.hpp's. The
// runtime's name comes from WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for its
// clang build); otherwise it is guessed from the compiler.
#include "sort/sort.hpp"

#include <omp.h>

#include <atomic>

#include "omp_impl.hpp"

namespace {

namespace srt = weft::bench::sort;

template <bool Count>
void count_task() noexcept {
    if constexpr (Count) srt::tasks_counted.fetch_add(1, std::memory_order_relaxed);
}

template <bool Count>
void merge(const srt::cutoffs* c, srt::merge_range r) {
    srt::merge_range lower{}, upper{};
    if (!srt::split_merge(*c, r, lower, upper)) return;
    count_task<Count>();
#pragma omp task untied firstprivate(c, lower)
    merge<Count>(c, lower);
    count_task<Count>();
#pragma omp task untied firstprivate(c, upper)
    merge<Count>(c, upper);
#pragma omp taskwait
}

template <bool Count>
void sort(const srt::cutoffs* c, srt::sort_range r) {
    srt::sort_step s{};
    if (!srt::split_sort(*c, r, s)) return;
    for (const srt::sort_range& q : s.quarter) {
        count_task<Count>();
#pragma omp task untied firstprivate(c, q)
        sort<Count>(c, q);
    }
#pragma omp taskwait
    for (const srt::merge_range& m : s.first) {
        count_task<Count>();
#pragma omp task untied firstprivate(c, m)
        merge<Count>(c, m);
    }
#pragma omp taskwait
    merge<Count>(c, s.last);
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const srt::options o = srt::parse_options(argc, argv);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    const srt::cutoffs* c = &o.cut;
    srt::measure(impl, team, o, [&](bool counting, const srt::sort_range& r) {
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        {
            if (counting) sort<true>(c, r);
            else sort<false>(c, r);
        }
    });
    return 0;
}
