// Remote performance-counter queries under mpirun (issue #24), run by ctest at 1, 2 and 4
// ranks (4 on 2 cores: oversubscribed). Each mode checks every value it can predict and
// exits non-zero on the first mismatch, naming it; ctest's timeout turns a hang into a
// failure.
//
//   remote_counters all       locality 0 has every locality in turn query the next one's
//                             counters from a task (an action): exact task counts where the
//                             queried locality has one worker (else bounds), names and their
//                             order, locality#* with one instance per locality, reset then
//                             evaluate, a derived counter evaluated where its operands are,
//                             exact /agas resolves, a bad name resolved remotely (a
//                             weft::bad_counter_name); at one rank, locality#1 is refused;
//                             after the run, the old set throws weft::runtime_state_error
//   remote_counters spmd      (with --weft:spmd) every locality queries every locality's
//                             counters at once, evaluating and resetting in rounds
//   remote_counters explicit  locality 0's main thread, outside any task, queries them all
//
// A locality counts a task when it finishes; on a locality with one worker a finished task
// is counted before the next one starts, so counts there are exact: the task that answered
// an open or an evaluation (its reading taken inside it) is counted in the next interval.
#include <weft/counters/counters.hpp>
#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include "check.hpp"

#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

using weft_test::failures;

using weft_test::thrown;

bool contains(const std::optional<std::string>& s, std::string_view part) {
    return s && s->find(part) != std::string::npos;
}

std::string name(std::uint32_t locality, std::string_view object, std::string_view instance, std::string_view path) {
    // Appended piece by piece: g++ 12's -Wrestrict misreads the chain of operator+.
    std::string s = "/";
    s.append(object).append("{locality#").append(std::to_string(locality)).append("/");
    s.append(instance).append("}/").append(path);
    return s;
}

// The sets a check made, kept until drop_kept(): a set's destruction posts a close to the
// localities it spans, which runs there as a task and would blur the next check's exact
// counts (it may arrive at any time).
std::mutex graveyard_mutex;
std::deque<weft::counters::counter_set> graveyard;

weft::counters::counter_set& keep(weft::counters::counter_set s) {
    const std::lock_guard lock(graveyard_mutex);
    return graveyard.emplace_back(std::move(s));
}

}  // namespace

/// Destroys the sets this locality kept (their localities forget them).
void drop_kept() {
    std::deque<weft::counters::counter_set> dead;
    {
        const std::lock_guard lock(graveyard_mutex);
        dead.swap(graveyard);
    }
}
WEFT_PLAIN_ACTION(drop_kept, drop_kept_action);

/// Runs `n` tasks here (posted: each counted when it finishes) and waits for them.
void spawn_tasks(int n) {
    weft::latch done(n);
    for (int i = 0; i < n; ++i) weft::post([&done] { done.count_down(); });
    done.wait();
}
WEFT_PLAIN_ACTION(spawn_tasks, spawn_tasks_action);

/// Resolves this locality's id `n` times (each counted by /agas{...}/count/resolve here).
void resolve_here(int n) {
    for (int i = 0; i < n; ++i) (void)weft::get_locality(weft::find_here()).get();
}
WEFT_PLAIN_ACTION(resolve_here, resolve_here_action);

namespace {

/// From this locality, every check on locality `k`'s counters (k is another locality, or
/// this one at one rank). Returns the failures.
int check_from_here(std::uint32_t k) {
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    const weft::id_type there = weft::find_locality(k);
    const std::string count = name(k, "threads", "total", "count/cumulative");

    // Its workers, through a wildcard over worker numbers that only it resolves.
    const auto workers = keep(weft::counters::query(name(k, "threads", "worker-thread#*", "count/cumulative"))).size();
    CHECK(workers >= 1);
    const bool exact = workers == 1 && k != me;

    // Task counts: the open's task, then the evaluation's and the N + 1 tasks of the spawn.
    constexpr int tasks = 40;
    weft::counters::counter_set& set = keep(weft::counters::query(count));
    CHECK(set.names() == std::vector<std::string>{count});
    auto v = set.evaluate(true);
    CHECK(v.size() == 1 && v[0].name == count && v[0].unit == "tasks" && v[0].available);
    if (exact) CHECK(v.size() == 1 && v[0].value == 1);
    weft::async(spawn_tasks_action{}, there, tasks).get();
    v = set.evaluate();
    CHECK(v.size() == 1 && v[0].available);
    if (v.size() == 1) {
        if (exact) CHECK(v[0].value == tasks + 2);
        else CHECK(v[0].value <= tasks + 2 + (k == me ? 8 : 0));
        std::printf("remote_counters: locality %u: locality#%u (%zu worker(s)) finished %.0f tasks over the spawn of %d "
                    "(%s)\n",
                    me, k, workers, v[0].value, tasks, exact ? "exact" : "bounded");
        CHECK(v[0].interval_s > 0);
    }
    // Without a reset the interval goes on: never less.
    const auto again = set.evaluate();
    CHECK(again.size() == 1 && v.size() == 1 && again[0].value >= v[0].value);
    if (exact && again.size() == 1) CHECK(again[0].value == tasks + 3);
    // reset() starts a new one: only the reset's task since.
    set.reset();
    v = set.evaluate();
    CHECK(v.size() == 1);
    if (exact && v.size() == 1) CHECK(v[0].value == 1);

    // A derived counter whose operands are all k's: k evaluates both from one reading.
    const std::string twice = "/arithmetics/add@" + count + "," + count;
    weft::counters::counter_set& derived = keep(weft::counters::query({count, twice}));
    CHECK(derived.size() == 2);
    CHECK(derived.size() == 2 && derived.names()[1] == twice);
    weft::async(spawn_tasks_action{}, there, 3).get();
    v = derived.evaluate();
    CHECK(v.size() == 2 && v[1].available && v[1].value == 2 * v[0].value && v[1].unit == "tasks");

    // /agas resolves: exactly those k made.
    weft::counters::counter_set& agas = keep(
        weft::counters::query({name(k, "agas", "total", "count/resolve"), name(k, "agas", "total", "count/cache-hits"),
                               name(k, "agas", "total", "count/cache-misses"), name(k, "agas", "total", "count/migrations")}));
    CHECK(agas.size() == 4);
    weft::async(resolve_here_action{}, there, 7).get();
    v = agas.evaluate(true);
    CHECK(v.size() == 4 && v[0].available && v[0].unit == "resolves");
    if (v.size() == 4) {
        CHECK(v[0].value == 7);
        CHECK(v[3].value == 0);
    }

    // Every locality at once: this one's instance first, then the others' in order, per pattern.
    const std::vector<std::string> patterns = {"/threads{locality#*/total}/count/cumulative",
                                               "/runtime{locality#*/total}/uptime"};
    std::vector<std::string> want;
    for (const std::string_view what : {std::string_view("threads|count/cumulative"), std::string_view("runtime|uptime")}) {
        const std::string object(what.substr(0, what.find('|'))), path(what.substr(what.find('|') + 1));
        want.push_back(name(me, object, "total", path));
        for (std::uint32_t i = 0; i < n; ++i)
            if (i != me) want.push_back(name(i, object, "total", path));
    }
    weft::counters::counter_set& all = keep(weft::counters::query(patterns));
    CHECK(all.names() == want);
    CHECK(all.size() == 2 * n);
    v = all.evaluate(true);
    CHECK(v.size() == want.size());
    for (std::size_t i = 0; i < v.size() && i < want.size(); ++i) {
        CHECK(v[i].name == want[i]);
        CHECK(v[i].available);
    }
    for (std::size_t i = n; i < v.size(); ++i) CHECK(v[i].value > 0);  // every locality has been up a while
    // The same names in another order of patterns: the order follows the patterns.
    weft::counters::counter_set& swapped = keep(weft::counters::query({patterns[1], patterns[0]}));
    CHECK(swapped.size() == want.size() && swapped.names()[0] == want[n] && swapped.names()[n] == want[0]);
    // A pattern repeated, or covered by an earlier one, adds nothing.
    CHECK(keep(weft::counters::query({patterns[0], patterns[0], count})).size() == n);

    // Names only k can judge come back as its weft::bad_counter_name.
    if (k != me) {
        const auto e = thrown<weft::bad_counter_name>(
            [&] { (void)weft::counters::query(name(k, "threads", "worker-thread#" + std::to_string(workers), "idle-rate")); });
        CHECK(contains(e, "worker(s)"));
        CHECK(contains(e, "locality#" + std::to_string(k)));
    }
    // A wildcard that matches on no locality.
    auto e = thrown<weft::bad_counter_name>(
        [] { (void)weft::counters::query("/threads{locality#*/worker-thread#999}/idle-rate"); });
    CHECK(contains(e, n == 1 ? "worker(s)" : "matches no counter on any locality"));
    // A name that is no counter, anywhere: refused here.
    e = thrown<weft::bad_counter_name>([&] { (void)weft::counters::query(name(k, "threads", "total", "count/nope")); });
    CHECK(contains(e, "no such counter"));
    // Beyond the run.
    e = thrown<weft::bad_counter_name>([&] { (void)weft::counters::query(name(n, "threads", "total", "idle-rate")); });
    CHECK(contains(e, n == 1 ? "this run has one locality" : "localities: locality#0 to"));
    return failures;
}

}  // namespace

int check_from(std::uint32_t k) { return check_from_here(k); }
WEFT_PLAIN_ACTION(check_from, check_from_action);

namespace {

/// A set kept past the runtime that made it.
std::optional<weft::counters::counter_set> kept;

int run_all() {
    const std::uint32_t n = weft::get_num_localities();
    // Locality i checks locality i + 1 (at one rank: itself), one after the other, so that
    // nothing else runs on the locality checked.
    for (std::uint32_t i = 0; i < n; ++i) {
        const int theirs = weft::async(check_from_action{}, weft::find_locality(i), (i + 1) % n).get();
        if (theirs != 0) std::fprintf(stderr, "locality %u: %d checks failed there\n", i, theirs);
        CHECK(theirs == 0);
    }
    if (n == 1) {
        const auto e = thrown<weft::bad_counter_name>(
            [] { (void)weft::counters::query("/threads{locality#1/total}/count/cumulative"); });
        CHECK(contains(e, "this run has one locality"));
        CHECK(contains(e, "locality#1"));
    }
    // Every locality forgets the sets the checks made.
    for (std::uint32_t i = 0; i < n; ++i) weft::async(drop_kept_action{}, weft::find_locality(i)).get();
    kept = weft::counters::query("/threads{locality#*/total}/count/cumulative");
    CHECK(kept->size() == n);
    return failures;
}

int run_spmd() {
    // Every locality evaluates every locality's counters while the others do the same.
    const std::uint32_t n = weft::get_num_localities();
    weft::counters::counter_set set = weft::counters::query(
        {"/threads{locality#*/total}/count/cumulative", "/parcels{locality#*/total}/count/received"});
    CHECK(set.size() == 2 * n);
    std::vector<double> last(set.size(), 0);
    for (int round = 0; round < 20; ++round) {
        weft::async(spawn_tasks_action{}, weft::find_locality((weft::get_locality_id() + 1) % n), 5).get();
        const auto v = set.evaluate();
        CHECK(v.size() == last.size());
        for (std::size_t i = 0; i < v.size() && i < last.size(); ++i) {
            CHECK(v[i].available && v[i].value >= last[i]);  // no reset: cumulative
            last[i] = v[i].value;
        }
        if (round % 5 == 4) {
            set.reset();
            last.assign(last.size(), 0);
        }
    }
    return failures;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "all";
    if (mode != "all" && mode != "spmd" && mode != "explicit") {
        std::fprintf(stderr, "usage: remote_counters [all|spmd|explicit] [--weft:...]\n");
        return 2;
    }
    if (mode == "explicit") {
        weft::runtime rt(argc, argv);
        if (weft::get_locality_id() == 0) {
            // A thread outside weft: its evaluate() blocks until every answer is here.
            const std::uint32_t n = weft::get_num_localities();
            weft::counters::counter_set set = weft::counters::query("/runtime{locality#*/total}/uptime");
            CHECK(set.size() == n);
            const auto v = set.evaluate(true);
            CHECK(v.size() == n);
            for (const auto& x : v) CHECK(x.available && x.value > 0);
            set.reset();
            CHECK(set.evaluate().size() == n);
        }
        rt.stop();
        std::printf("remote_counters explicit: locality done, %d failures\n", failures);
        return failures;
    }
    int rc = weft::run(argc, argv, [&](int, char**) -> int { return mode == "all" ? run_all() : run_spmd(); });
    if (kept) {
        // The runtime has stopped: the set says so rather than waiting for answers.
        CHECK(thrown<weft::runtime_state_error>([] { (void)kept->evaluate(); }).has_value());
        CHECK(thrown<weft::runtime_state_error>([] { kept->reset(); }).has_value());
        kept.reset();
    }
    std::printf("remote_counters %s: locality done, %d failures\n", mode.c_str(), failures);
    return rc != 0 ? rc : failures;
}
