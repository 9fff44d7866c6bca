// Health in the shape of the Barcelona OpenMP Tasks Suite's health (Duran et al. 2009;
// seed 001 ch.3: "every village being simulated is run as a task"), Olden's model of
// the Colombian health-care system: a tree of villages, each with a hospital, whose patients fall sick, queue,
// are assessed, are treated or are sent up to the hospital of the village above. Shared
// by bench/health/{serial,weft,tbb,omp}.cpp and by bench/inncabs/health.cpp (INNCABS's
// port of the same program): the world, its generator, the per-village step, the
// results, the BOTS input classes with their published results, and the result line.
//
// The world (BOTS allocate_village): the top village has level L; every village of
// level l > 1 has C villages of level l - 1 below it (L levels, 1 + C + ... + C^(L-1)
// villages). A village of level l has a hospital with 2^l staff and 10 * 2^l people, all
// healthy at the start. Villages are numbered as BOTS does (the top 0, the children of v
// v*C + 1 .. v*C + C) and seeded with id * (127773 + seed); a village's people, numbered
// in allocation order (depth first, a village before the villages below it, its children
// from the C-th to the first), take the village's seed in turn, which advances by one
// draw per person. The children are visited from the first to the C-th.
//
// One time step of a village v (BOTS sim_village_par), with its children as tasks:
//   spawn the step of every child village                               (a task each)
//   inside:  every treated patient whose time is up goes home, freeing a staff member
//   assess:  every assessed patient whose time is up draws: below convalescence_p he
//            stays to be treated (convalescence_time steps) unless a second draw is at
//            most realloc_p and v is not the top, then he moves to the reallocation list
//            of the village above (under that list's lock; siblings append to it
//            concurrently); otherwise he goes home. Either way but treatment frees staff.
//   waiting: every waiting patient takes a free staff member, else waits one more step
//   join the children
//   realloc: the patients sent up from below enter this hospital, smallest id first
//   population: every person at home draws; below get_sick_p he enters the hospital
// "Enter": one more hospital visit; assessed at once (assess_time steps) if a staff
// member is free, else on the waiting list. Every list keeps arrival order.
//
// Every patient draws from his own generator (BOTS my_rand: Park-Miller's minimal
// standard with a mask, 32-bit state) and the reallocation list is taken in id order, so
// the world after any number of steps is the same whatever order the villages' tasks run
// in, and equal to the serial one: the check compares its counts (BOTS check_village)
// with the numbers published with BOTS's input files for the standard classes, and with
// a serial simulation for any other input.
//
// Deviations from BOTS: the generator's state is 32 bits, as in the BOTS that computed
// the published results (today's BOTS keeps it in a 64-bit long and no longer matches
// them); a village appends to the list of the village above under that
// list's own lock (BOTS takes the lock of the appending village, so that two siblings
// can append to their parent's list at once); people and villages live in two arrays
// rather than one allocation each; the counts are summed in integers rather than floats.
//
// Options: --input=test|small|medium|large (BOTS's input files; default medium, ~6 s
// serially here), --steps=N (overrides the class's 365 steps; the check is then a serial
// simulation), --cutoff=D (BOTS's manual cut-off: only villages less than D levels below
// the top spawn their children as tasks; default none: every village's step is a task),
// --workers=N, --reps=N; --weft:* is left to the weft runtime.
//
// Result line: bench_common.hpp's format with problem=health, n=<villages>,
// calls=<tasks per run> (the serial program: village steps), result=<check-ins>, then
// input=, steps=, cutoff=, at_home=, waiting=, assess=, inside=, avg_stay=.
#pragma once

#include "common/bench_common.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string_view>

namespace weft::bench::health {

/// One BOTS input file's parameters.
struct parameters {
    int levels;
    int cities;
    int population_ratio;
    int steps;
    int assess_time;
    int convalescence_time;
    std::int32_t seed;
    float get_sick_p;
    float convalescence_p;
    float realloc_p;
};

/// What BOTS's check_village counts, plus the summed time (for the average stay).
struct totals {
    std::int64_t population = 0;
    std::int64_t hospitals = 0;
    std::int64_t personnel = 0;
    std::int64_t checkins = 0;
    std::int64_t at_home = 0;
    std::int64_t waiting = 0;
    std::int64_t assess = 0;
    std::int64_t inside = 0;
    std::int64_t time = 0;

    /// Equality of BOTS's eight checked counts (not of the time).
    bool same_counts(const totals& o) const noexcept {
        return population == o.population && hospitals == o.hospitals && personnel == o.personnel &&
               checkins == o.checkins && at_home == o.at_home && waiting == o.waiting && assess == o.assess &&
               inside == o.inside;
    }
    double average_stay() const noexcept {
        return population == 0 ? 0.0 : static_cast<double>(time) / static_cast<double>(population);
    }
};

/// A BOTS input class: the parameters of its file and the results published with them.
struct input_class {
    const char* name;
    parameters p;
    totals expected;  ///< time left 0: BOTS publishes only the average stay
    double average_stay;
};

// The first lines of BOTS's inputs/health/{test,small,medium,large}.input.
inline constexpr input_class classes[] = {
    {"test", {3, 18, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f}, {7280, 343, 728, 5531, 7160, 80, 26, 14, 0}, 5.259341},
    {"small", {4, 18, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f},
     {131200, 6175, 13120, 96718, 128997, 1406, 525, 272, 0}, 5.167470},
    {"medium", {4, 36, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f},
     {988000, 47989, 98800, 721934, 971855, 10249, 3901, 1995, 0}, 5.156507},
    {"large", {5, 24, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f},
     {7238720, 346201, 723872, 5267413, 7121156, 73923, 28969, 14672, 0}, 5.230891},
};

/// The class called `name`, or null.
inline const input_class* find_class(std::string_view name) noexcept {
    for (const input_class& c : classes) {
        if (name == c.name) return &c;
    }
    return nullptr;
}

/// BOTS's my_rand: Park and Miller's minimal standard generator (Schrage's method) on
/// a masked 32-bit state, drawn as a float in [0, 1); the state then becomes the draw's
/// integer times 2^31 - 1, wrapping modulo 2^32. This 32-bit arithmetic (that of the
/// 32-bit longs of BOTS's first versions, and of INNCABS's int32_t) is the one the
/// results published with BOTS's inputs come from; it is done here in unsigned
/// arithmetic, where C++ defines the wrap.
inline float draw(std::int32_t& seed) noexcept {
    constexpr std::int32_t ia = 16807, im = 2147483647, iq = 127773, ir = 2836, mask = 123459876;
    std::int32_t idum = seed ^ mask;
    const std::int32_t k = idum / iq;
    idum = ia * (idum - k * iq) - ir * k;  // |.| < 2^31: Schrage's method never overflows
    idum ^= mask;
    if (idum < 0) idum += im;
    seed = static_cast<std::int32_t>(static_cast<std::uint32_t>(idum) * static_cast<std::uint32_t>(im));
    return static_cast<float>(1.0 / static_cast<double>(im)) * static_cast<float>(idum);
}

struct patient {
    int id = 0;
    int time = 0;       ///< steps spent in hospitals so far (assessment, treatment, waiting)
    int time_left = 0;  ///< of the current assessment or treatment
    int hosps_visited = 0;
    std::int32_t seed = 0;
    patient* back = nullptr;
    patient* forward = nullptr;
};

/// A list of patients in arrival order (BOTS addList / removeList: appending walks to
/// the end, as BOTS does; the lists stay short).
struct patient_list {
    patient* head = nullptr;

    void append(patient* p) noexcept {
        p->forward = nullptr;
        if (head == nullptr) {
            head = p;
            p->back = nullptr;
            return;
        }
        patient* last = head;
        while (last->forward != nullptr) last = last->forward;
        last->forward = p;
        p->back = last;
    }
    void remove(patient* p) noexcept {
        if (p->back != nullptr) p->back->forward = p->forward;
        else head = p->forward;
        if (p->forward != nullptr) p->forward->back = p->back;
    }
};

/// A village and its hospital. `Mutex` guards `realloc`, which the villages below append
/// to while their steps run as tasks (a no-op lock for the serial program).
template <class Mutex>
struct village {
    int id = 0;
    int level = 0;
    std::int32_t seed = 0;
    village* parent = nullptr;
    village* first_child = nullptr;
    village* next_sibling = nullptr;
    patient_list population;
    int personnel = 0;
    int free_personnel = 0;
    patient_list waiting;
    patient_list assess;
    patient_list inside;
    patient_list realloc;
    Mutex realloc_lock;
};

/// A lock that does nothing: the serial program's.
struct no_mutex {
    void lock() noexcept {}
    void unlock() noexcept {}
};

/// Villages in 1 + C + ... + C^(L-1) (BOTS's tree).
inline std::int64_t village_count(const parameters& p) noexcept {
    std::int64_t total = 0, level_size = 1;
    for (int l = 0; l < p.levels; ++l) {
        total += level_size;
        level_size *= p.cities;
    }
    return total;
}

/// Tasks one time step spawns: every village but the top, or with a cut-off D those
/// 1..D levels below the top (cutoff 0: none).
inline std::int64_t tasks_per_step(const parameters& p, int cutoff) noexcept {
    std::int64_t tasks = 0, level_size = 1;
    for (int depth = 1; depth < p.levels && (cutoff == 0 || depth <= cutoff); ++depth) {
        level_size *= p.cities;
        tasks += level_size;
    }
    return tasks;
}

/// The whole world: every village and every person, as BOTS's allocate_village makes them.
template <class Mutex>
class world {
public:
    using village_type = village<Mutex>;

    explicit world(const parameters& p)
        : p_(p),
          villages_(std::make_unique<village_type[]>(static_cast<std::size_t>(village_count(p)))),
          village_count_(static_cast<std::size_t>(village_count(p))) {
        std::size_t people = 0;
        for (int l = p.levels, n = 1; l >= 1; --l, n *= p.cities) {
            people += static_cast<std::size_t>(n) * (static_cast<std::size_t>(p.population_ratio) << l);
        }
        people_ = std::make_unique<patient[]>(people);
        people_count_ = people;
        allocate(nullptr, p.levels, 0);
    }
    world(const world&) = delete;
    world& operator=(const world&) = delete;

    const parameters& params() const noexcept { return p_; }
    village_type* top() noexcept { return &villages_[0]; }
    std::size_t villages() const noexcept { return village_count_; }

    /// BOTS's get_results, summed in integers.
    totals results() const noexcept {
        totals t;
        const auto count = [&t](const patient_list& l, std::int64_t& where) {
            for (const patient* p = l.head; p != nullptr; p = p->forward) {
                ++t.population;
                ++where;
                t.checkins += p->hosps_visited;
                t.time += p->time;
            }
        };
        for (std::size_t i = 0; i < village_count_; ++i) {
            const village_type& v = villages_[i];
            ++t.hospitals;
            t.personnel += v.personnel;
            count(v.population, t.at_home);
            count(v.waiting, t.waiting);
            count(v.assess, t.assess);
            count(v.inside, t.inside);
        }
        return t;
    }

private:
    // BOTS allocate_village: the village, its people, then its children from the C-th to
    // the first, each linked before the one allocated just before it.
    village_type* allocate(village_type* parent, int level, int id) {
        village_type& v = villages_[next_village_++];
        v.id = id;
        v.level = level;
        v.parent = parent;
        // id * (127773 + seed) in BOTS's 32-bit arithmetic (it wraps for the large class).
        v.seed = static_cast<std::int32_t>(static_cast<std::uint32_t>(id) * static_cast<std::uint32_t>(127773 + p_.seed));
        v.personnel = 1 << level;
        v.free_personnel = v.personnel;
        const int population = v.personnel * p_.population_ratio;
        for (int i = 0; i < population; ++i) {
            patient& someone = people_[next_person_];
            someone.id = static_cast<int>(next_person_++);
            someone.seed = v.seed;
            (void)draw(v.seed);
            v.population.append(&someone);
        }
        village_type* next = nullptr;
        if (level > 1) {
            for (int i = p_.cities; i > 0; --i) {
                village_type* child = allocate(&v, level - 1, id * p_.cities + i);
                child->next_sibling = next;
                next = child;
            }
        }
        v.first_child = next;
        return &v;
    }

    parameters p_;
    std::unique_ptr<village_type[]> villages_;
    std::size_t village_count_;
    std::unique_ptr<patient[]> people_;
    std::size_t people_count_ = 0;
    std::size_t next_village_ = 0;
    std::size_t next_person_ = 0;
};

namespace detail {

/// Enters `someone` into the hospital (BOTS put_in_hosp).
template <class Mutex>
void enter(const parameters& p, village<Mutex>& v, patient* someone) noexcept {
    ++someone->hosps_visited;
    if (v.free_personnel > 0) {
        --v.free_personnel;
        v.assess.append(someone);
        someone->time_left = p.assess_time;
        someone->time += someone->time_left;
    } else {
        v.waiting.append(someone);
    }
}

}  // namespace detail

/// The part of a village's step that runs beside its children's (BOTS:
/// check_patients_inside, check_patients_assess_par, check_patients_waiting). It touches
/// only v's own lists, and the reallocation list of the village above under its lock.
template <class Mutex>
void step_before_join(const parameters& p, village<Mutex>& v) {
    for (patient *next = v.inside.head, *someone = next; someone != nullptr; someone = next) {
        next = someone->forward;
        if (--someone->time_left == 0) {
            ++v.free_personnel;
            v.inside.remove(someone);
            v.population.append(someone);
        }
    }
    for (patient *next = v.assess.head, *someone = next; someone != nullptr; someone = next) {
        next = someone->forward;
        if (--someone->time_left != 0) continue;
        if (draw(someone->seed) < p.convalescence_p) {
            if (draw(someone->seed) > p.realloc_p || v.level == p.levels) {
                v.assess.remove(someone);
                v.inside.append(someone);
                someone->time_left = p.convalescence_time;
                someone->time += someone->time_left;
            } else {
                ++v.free_personnel;
                v.assess.remove(someone);
                const std::lock_guard<Mutex> hold(v.parent->realloc_lock);
                v.parent->realloc.append(someone);
            }
        } else {
            ++v.free_personnel;
            v.assess.remove(someone);
            v.population.append(someone);
        }
    }
    for (patient *next = v.waiting.head, *someone = next; someone != nullptr; someone = next) {
        next = someone->forward;
        if (v.free_personnel > 0) {
            --v.free_personnel;
            someone->time_left = p.assess_time;
            someone->time += someone->time_left;
            v.waiting.remove(someone);
            v.assess.append(someone);
        } else {
            ++someone->time;
        }
    }
}

/// The part of a village's step after its children's have finished (BOTS:
/// check_patients_realloc, check_patients_population).
template <class Mutex>
void step_after_join(const parameters& p, village<Mutex>& v) {
    while (v.realloc.head != nullptr) {
        patient* first = v.realloc.head;
        for (patient* someone = first->forward; someone != nullptr; someone = someone->forward) {
            if (someone->id < first->id) first = someone;
        }
        v.realloc.remove(first);
        detail::enter(p, v, first);
    }
    for (patient *next = v.population.head, *someone = next; someone != nullptr; someone = next) {
        next = someone->forward;
        if (draw(someone->seed) < p.get_sick_p) {
            v.population.remove(someone);
            detail::enter(p, v, someone);
        }
    }
}

/// A "task group" that runs every task at once, on the caller: the serial simulation.
struct inline_group {
    template <class F>
    void run(F&& f) {
        f();
    }
    void wait() noexcept {}
};

/// One time step of `v` and every village below it, with a fork-join task group
/// (weft::task_group, tbb::task_group, inline_group): a child per village below v while
/// v is less than `cutoff` levels below the top (0: always), called in place after that.
template <class TaskGroup, class Mutex>
void step(const parameters& p, village<Mutex>& v, int cutoff) {
    if (cutoff == 0 || p.levels - v.level < cutoff) {
        TaskGroup g;
        for (village<Mutex>* c = v.first_child; c != nullptr; c = c->next_sibling) {
            g.run([&p, c, cutoff] { step<TaskGroup>(p, *c, cutoff); });
        }
        step_before_join(p, v);
        g.wait();
    } else {
        for (village<Mutex>* c = v.first_child; c != nullptr; c = c->next_sibling) step<inline_group>(p, *c, cutoff);
        step_before_join(p, v);
    }
    step_after_join(p, v);
}

/// The counts after a serial simulation of `p`: what a non-standard input is checked
/// against.
inline totals simulate_serially(const parameters& p) {
    world<no_mutex> w(p);
    for (int t = 0; t < p.steps; ++t) step<inline_group>(p, *w.top(), 0);
    return w.results();
}

struct options {
    const input_class* input = find_class("medium");
    int steps = 0;   ///< 0: the class's
    int cutoff = 0;  ///< 0: none
    unsigned workers = 0;
    unsigned reps = 3;

    parameters params() const noexcept {
        parameters p = input->p;
        if (steps != 0) p.steps = steps;
        return p;
    }
    /// Whether BOTS's published results apply (the class's own number of steps).
    bool standard() const noexcept { return steps == 0 || steps == input->p.steps; }
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--input=C] [--steps=N] [--cutoff=D] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --input=C    BOTS input class: test, small, medium (default), large\n"
                 "  --steps=N    time steps, 1..100000 (default: the class's, 365; other\n"
                 "               counts are checked against a serial simulation)\n"
                 "  --cutoff=D   only villages less than D levels below the top spawn their\n"
                 "               children as tasks (default: none, a task per village)\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--input") return (o.input = find_class(v)) != nullptr;
        if (name == "--steps") return parse_number(v, o.steps) && o.steps >= 1 && o.steps <= 100000;
        if (name == "--cutoff") return parse_number(v, o.cutoff) && o.cutoff >= 1;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// What a run is checked against: the class's published counts, or a serial simulation.
inline totals expected_totals(const options& o) {
    return o.standard() ? o.input->expected : simulate_serially(o.params());
}

/// One warm-up run and o.reps timed ones of `run(world&)`, each on a fresh world (built
/// untimed), each checked (see the file comment) and reported with `calls` tasks.
template <class Mutex, class Run>
void measure(const char* impl, unsigned workers, const options& o, std::uint64_t calls, Run run) {
    const parameters p = o.params();
    const totals expected = expected_totals(o);
    char cutoff[16] = "none";
    if (o.cutoff != 0) std::snprintf(cutoff, sizeof cutoff, "%d", o.cutoff);
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        world<Mutex> w(p);
        const double seconds = time_seconds([&] { run(w); });
        const totals got = w.results();
        if (!got.same_counts(expected)) {
            std::fprintf(stderr,
                         "weft-bench problem=health impl=%s: WRONG RESULT population/hospitals/personnel/checkins/"
                         "at_home/waiting/assess/inside %lld/%lld/%lld/%lld/%lld/%lld/%lld/%lld, expected "
                         "%lld/%lld/%lld/%lld/%lld/%lld/%lld/%lld\n",
                         impl, static_cast<long long>(got.population), static_cast<long long>(got.hospitals),
                         static_cast<long long>(got.personnel), static_cast<long long>(got.checkins),
                         static_cast<long long>(got.at_home), static_cast<long long>(got.waiting),
                         static_cast<long long>(got.assess), static_cast<long long>(got.inside),
                         static_cast<long long>(expected.population), static_cast<long long>(expected.hospitals),
                         static_cast<long long>(expected.personnel), static_cast<long long>(expected.checkins),
                         static_cast<long long>(expected.at_home), static_cast<long long>(expected.waiting),
                         static_cast<long long>(expected.assess), static_cast<long long>(expected.inside));
            std::exit(1);
        }
        if (rep == 0) continue;
        std::printf("weft-bench problem=health impl=%s workers=%u n=%zu calls=%llu seconds=%.6f ns_per_call=%.3f "
                    "result=%lld input=%s steps=%d cutoff=%s at_home=%lld waiting=%lld assess=%lld inside=%lld "
                    "avg_stay=%.6f\n",
                    impl, workers, w.villages(), static_cast<unsigned long long>(calls), seconds,
                    seconds * 1e9 / static_cast<double>(calls), static_cast<long long>(got.checkins), o.input->name,
                    p.steps, cutoff, static_cast<long long>(got.at_home), static_cast<long long>(got.waiting),
                    static_cast<long long>(got.assess), static_cast<long long>(got.inside), got.average_stay());
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::health
