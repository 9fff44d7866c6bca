// Health on OpenMP tasks, as BOTS runs it: one thread of the team (`omp single`) runs
// the time steps; in each, every village creates one untied `omp task` per village below
// it, does its own patients' step beside them, `omp taskwait`s and then takes in the
// patients they sent up (BOTS's sim_village_par, and its manual cut-off with --cutoff).
// The reallocation lists are guarded by omp_lock_t, as in BOTS. The runtime's name comes
// from WEFT_BENCH_OMP_IMPL (scripts/bench sets "omp-libomp" for its clang build);
// otherwise it is guessed from the compiler.
#include "health/health.hpp"

#include <omp.h>

#include <cstdint>

#include "omp_impl.hpp"

namespace {

namespace hl = weft::bench::health;

/// omp_lock_t as a Lockable.
class omp_mutex {
public:
    omp_mutex() noexcept { omp_init_lock(&lock_); }
    ~omp_mutex() { omp_destroy_lock(&lock_); }
    omp_mutex(const omp_mutex&) = delete;
    omp_mutex& operator=(const omp_mutex&) = delete;
    void lock() noexcept { omp_set_lock(&lock_); }
    void unlock() noexcept { omp_unset_lock(&lock_); }

private:
    omp_lock_t lock_;
};

using village = hl::village<omp_mutex>;

// The same step as hl::step (health.hpp), with the children as OpenMP tasks.
void step(const hl::parameters* p, village* v, int cutoff) {
    if (cutoff == 0 || p->levels - v->level < cutoff) {
        for (village* c = v->first_child; c != nullptr; c = c->next_sibling) {
#pragma omp task untied firstprivate(p, c, cutoff)
            step(p, c, cutoff);
        }
        hl::step_before_join(*p, *v);
#pragma omp taskwait
    } else {
        for (village* c = v->first_child; c != nullptr; c = c->next_sibling) step(p, c, cutoff);
        hl::step_before_join(*p, *v);
    }
    hl::step_after_join(*p, *v);
}

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* impl = WEFT_BENCH_OMP_IMPL;
    const hl::options o = hl::parse_options(argc, argv);
    const hl::parameters p = o.params();
    const auto calls = static_cast<std::uint64_t>(hl::tasks_per_step(p, o.cutoff)) * static_cast<std::uint64_t>(p.steps);
    omp_set_dynamic(0);

    unsigned team = 0;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
    team = static_cast<unsigned>(omp_get_num_threads());

    hl::measure<omp_mutex>(impl, team, o, calls, [&](hl::world<omp_mutex>& w) {
        village* top = w.top();
        const hl::parameters* pp = &p;
        const int cutoff = o.cutoff;
#pragma omp parallel num_threads(static_cast<int>(o.workers))
#pragma omp single
        for (int t = 0; t < pp->steps; ++t) step(pp, top, cutoff);
    });
    return 0;
}
