// Components, global ids and migration under mpirun (issue #24), run by ctest at 1, 2
// and 4 ranks (4 on 2 cores: oversubscribed). Each mode checks every result against a
// value computed here and exits non-zero on the first mismatch, naming it; ctest's
// timeout turns a hang into a failure.
//
//   components all      components on every locality, called from every locality with
//                       exact totals; container layouts; calls racing migrations back
//                       and forth (exact total and count: nothing lost, nothing run
//                       twice); names; destroy then call; type mismatches; clients;
//                       get_locality; distributed promises set from other localities;
//                       the /agas counters; distributed latch, channel (ping-pong, many
//                       senders) and barrier
//   components leak     main returns with components alive: each locality destroys its
//                       own at stop and says how many
#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include "check.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

using weft_test::failures;

using weft_test::thrown;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

std::atomic<int> destroyed_here{0};

}  // namespace

/// Migratable (trivially copyable): its state moves with it. The actions of one object
/// may run concurrently: the counts are atomic_ref'd.
struct accumulator : weft::component<accumulator> {
    std::int64_t total = 0;
    std::int64_t calls = 0;
    accumulator() = default;
    explicit accumulator(std::int64_t start) : total(start) {}
    void add(std::int64_t x) {
        std::atomic_ref<std::int64_t>(total).fetch_add(x);
        std::atomic_ref<std::int64_t>(calls).fetch_add(1);
    }
    std::int64_t get() const { return std::atomic_ref<const std::int64_t>(total).load(); }
    std::int64_t count() const { return std::atomic_ref<const std::int64_t>(calls).load(); }
    std::uint32_t where() const { return weft::get_locality_id(); }
    weft::id_type self() const { return get_id(); }
    WEFT_COMPONENT_ACTION(accumulator, add, add_action);
    WEFT_COMPONENT_ACTION(accumulator, get, get_action);
    WEFT_COMPONENT_ACTION(accumulator, count, count_action);
    WEFT_COMPONENT_ACTION(accumulator, where, where_action);
    WEFT_COMPONENT_ACTION(accumulator, self, self_action);
};
WEFT_REGISTER_COMPONENT(accumulator);

/// Not migratable (a mutex, a string built at construction: no serialize); throws on demand.
struct journal : weft::component<journal> {
    explicit journal(std::string name) : name_(std::move(name)) {}
    ~journal() { destroyed_here.fetch_add(1); }
    std::size_t append(std::string line) {
        const std::lock_guard lock(m_);
        lines_.push_back(std::move(line));
        return lines_.size();
    }
    std::string name() const { return name_; }
    void fail(std::string why) { throw std::invalid_argument(name_ + ": " + why); }
    WEFT_COMPONENT_ACTION(journal, append, append_action);
    WEFT_COMPONENT_ACTION(journal, name, name_action);
    WEFT_COMPONENT_ACTION(journal, fail, fail_action);

private:
    std::mutex m_;
    std::string name_;
    std::vector<std::string> lines_;
};
WEFT_REGISTER_COMPONENT(journal);

/// Migratable through its serialize function, with a payload large enough to be a
/// zero-copy chunk: the state moves with the object.
struct tile : weft::component<tile> {
    std::vector<double> values;
    std::int64_t version = 0;
    tile() = default;
    explicit tile(std::size_t n) : values(n, 1.0) {}
    template <class Archive>
    void serialize(Archive& ar) {
        ar(values, version);
    }
    double sum() const {
        double s = 0;
        for (double v : values) s += v;
        return s + static_cast<double>(version);
    }
    void bump() { ++version; }
    WEFT_COMPONENT_ACTION(tile, sum, sum_action);
    WEFT_COMPONENT_ACTION(tile, bump, bump_action);
};
WEFT_REGISTER_COMPONENT(tile);

namespace {

/// Run on a locality: `n` adds of 1 to `id` from here, awaited; returns how many.
std::int64_t add_from_here(weft::id_type id, std::int64_t n) {
    std::vector<weft::future<void>> done;
    done.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) done.push_back(weft::async(accumulator::add_action{}, id, std::int64_t{1}));
    for (auto& f : done) f.get();
    return n;
}

/// Run on a locality: the total of every id in `ids` (calls from here).
std::int64_t total_of(std::vector<weft::id_type> ids) {
    std::int64_t t = 0;
    for (const auto& id : ids) t += weft::async(accumulator::get_action{}, id).get();
    return t;
}

/// Run on a locality: registers its own component under "per-locality", finds every
/// other locality's and returns the sum of their `where`s.
std::uint32_t names_here(weft::id_type mine) {
    const std::uint32_t me = weft::get_locality_id(), n = weft::get_num_localities();
    if (!weft::register_with_basename("per-locality", mine, me).get()) return ~0u;
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const weft::id_type other = weft::find_from_basename("per-locality", i).get();
        sum += weft::async(accumulator::where_action{}, other).get();
    }
    return sum;
}

/// Run on a locality: tries to register `id` under a name every locality races for.
bool race_for_name(weft::id_type id) { return weft::register_with_basename("contested", id).get(); }

/// Run on a locality: sets the promises `value` (to v), `done` and `failed` made elsewhere.
void set_promises(weft::id_type value, weft::id_type done, weft::id_type failed, int v) {
    weft::set_lco_value(value, v);
    weft::set_lco_value(done);
    weft::set_lco_exception(failed, std::make_exception_ptr(std::out_of_range("far away")));
}

/// Run on a locality: makes a promise here, has locality `setter` set it, returns its value.
std::string promise_via(std::uint32_t setter);

}  // namespace

WEFT_PLAIN_ACTION(set_promises, set_promises_action);

namespace {
/// Run on a locality: sets the promise<std::string> `id` to `s`.
void set_text(weft::id_type id, std::string s) { weft::set_lco_value(id, std::move(s)); }
}  // namespace
WEFT_PLAIN_ACTION(set_text, set_text_action);

namespace {
std::string promise_via(std::uint32_t setter) {
    weft::distributed::promise<std::string> p;
    weft::future<std::string> f = p.get_future();
    weft::post(set_text_action{}, weft::find_locality(setter), p.get_id(),
               "from " + std::to_string(setter) + " to " + std::to_string(weft::get_locality_id()));
    return f.get();
}
}  // namespace
WEFT_PLAIN_ACTION(promise_via, promise_via_action);

namespace {
namespace wd = weft::distributed;

/// Run on a locality: counts the latch "arrivals" down once, waits for it to open.
bool arrive_at_latch() {
    wd::latch l = wd::latch::connect("arrivals");
    l.arrive_and_wait();
    return l.try_wait();
}

/// Run on a locality: waits on the latch `id` and says how that ended.
std::string wait_for_latch(weft::id_type id) {
    try {
        wd::latch(id).wait();
        return "opened";
    } catch (const weft::lco_error& e) {
        return e.code() == std::make_error_code(std::errc::operation_canceled) ? "released" : e.what();
    } catch (const weft::error& e) {
        return "destroyed";
    }
}

/// Run on a locality: the other end of a ping-pong: answers each value v of channel
/// "ping" with v + 1 on its own channel "pong" until "ping" closes; returns how many.
std::int64_t ponger(weft::id_type ready) {
    auto pong = wd::channel<std::int64_t>::create("pong");
    weft::set_lco_value(ready);
    auto ping = wd::channel<std::int64_t>::connect("ping");
    std::int64_t answered = 0;
    try {
        for (;;) {
            pong.send(ping.receive() + 1);
            ++answered;
        }
    } catch (const weft::channel_closed&) {
    }
    return answered;
}

/// Run on a locality: sends (locality, i) for i < n, each awaited, to the channel `id`.
void send_numbered(weft::id_type id, std::int64_t n) {
    wd::channel<std::pair<std::uint32_t, std::int64_t>> c(id);
    for (std::int64_t i = 0; i < n; ++i) c.send({weft::get_locality_id(), i});
}

/// Run on a locality: `rounds` phases of a barrier over every locality; before each,
/// adds 1 to `tally`; after it, checks every locality's add of that phase is in.
/// Returns the phases that found one missing.
std::int64_t barrier_rounds(weft::id_type tally, std::int64_t rounds) {
    wd::barrier b;
    const auto n = static_cast<std::int64_t>(weft::get_num_localities());
    std::int64_t missing = 0;
    for (std::int64_t r = 0; r < rounds; ++r) {
        weft::async(accumulator::add_action{}, tally, std::int64_t{1}).get();
        b.arrive_and_wait();
        if (weft::async(accumulator::get_action{}, tally).get() < (r + 1) * n) ++missing;
    }
    return missing;
}

/// Run on a locality of `members`: a barrier over them only, `rounds` times.
std::int64_t subset_barrier(std::vector<weft::id_type> members, std::int64_t rounds) {
    wd::barrier b(members);
    for (std::int64_t r = 0; r < rounds; ++r) b.arrive_and_wait();
    return rounds;
}

}  // namespace
WEFT_PLAIN_ACTION(arrive_at_latch, arrive_at_latch_action);
WEFT_PLAIN_ACTION(wait_for_latch, wait_for_latch_action);
WEFT_PLAIN_ACTION(ponger, ponger_action);
WEFT_PLAIN_ACTION(send_numbered, send_numbered_action);
WEFT_PLAIN_ACTION(barrier_rounds, barrier_rounds_action);
WEFT_PLAIN_ACTION(subset_barrier, subset_barrier_action);

WEFT_PLAIN_ACTION(add_from_here, add_from_here_action);
WEFT_PLAIN_ACTION(total_of, total_of_action);
WEFT_PLAIN_ACTION(names_here, names_here_action);
WEFT_PLAIN_ACTION(race_for_name, race_for_name_action);

namespace {

void check_everywhere() {
    const auto all = weft::find_all_localities();
    const std::uint32_t n = weft::get_num_localities();
    // One accumulator per locality, each starting at 100 * locality.
    std::vector<weft::id_type> ids;
    for (std::uint32_t i = 0; i < n; ++i) ids.push_back(weft::new_<accumulator>(all[i], std::int64_t{100} * i).get());
    for (std::uint32_t i = 0; i < n; ++i) {
        CHECK(ids[i].is_component());
        CHECK(ids[i].is_migratable());
        CHECK(ids[i].locality_id() == i);
        CHECK(weft::get_locality(ids[i]).get() == all[i]);
        CHECK(weft::async(accumulator::where_action{}, ids[i]).get() == i);
        CHECK(weft::async(accumulator::self_action{}, ids[i]).get() == ids[i]);  // get_id() inside
    }
    // From every locality, 300 adds of 1 to every component.
    std::vector<weft::future<std::int64_t>> adds;
    for (std::uint32_t from = 0; from < n; ++from)
        for (const auto& id : ids) adds.push_back(weft::async(add_from_here_action{}, all[from], id, std::int64_t{300}));
    for (auto& f : adds) CHECK(f.get() == 300);
    for (std::uint32_t i = 0; i < n; ++i) {
        CHECK(weft::async(accumulator::get_action{}, ids[i]).get() == std::int64_t{100} * i + 300 * n);
        CHECK(weft::async(accumulator::count_action{}, ids[i]).get() == 300 * std::int64_t{n});
    }
    // Every locality reads every total.
    std::int64_t expect = 0;
    for (std::uint32_t i = 0; i < n; ++i) expect += std::int64_t{100} * i + 300 * n;
    for (std::uint32_t from = 0; from < n; ++from) CHECK(weft::async(total_of_action{}, all[from], ids).get() == expect);
    for (const auto& id : ids) weft::destroy(id).get();
}

void check_layouts() {
    const auto all = weft::find_all_localities();
    const std::size_t n = all.size();
    // Blocks over all localities: 8 components, locality i gets 8/n (+1 for the first 8%n).
    const std::vector<weft::id_type> blocks = weft::new_<accumulator>(weft::container_layout(8), std::int64_t{7}).get();
    CHECK(blocks.size() == 8);
    std::vector<std::size_t> per(n, 0);
    std::uint32_t last = 0;
    for (const auto& id : blocks) {
        const std::uint32_t at = weft::get_locality(id).get().locality_id();
        CHECK(at >= last);  // blocks: non-decreasing
        last = at;
        ++per[at];
        CHECK(weft::async(accumulator::get_action{}, id).get() == 7);
    }
    for (std::size_t i = 0; i < n; ++i) CHECK(per[i] == 8 / n + (i < 8 % n ? 1 : 0));
    // Cyclic over the localities in reverse order: component i on reverse[i % n].
    std::vector<weft::id_type> reverse(all.rbegin(), all.rend());
    const std::vector<weft::id_type> cyc =
        weft::new_<accumulator>(weft::container_layout::cyclic(5, reverse), std::int64_t{1}).get();
    CHECK(cyc.size() == 5);
    for (std::size_t i = 0; i < cyc.size(); ++i) CHECK(weft::get_locality(cyc[i]).get() == reverse[i % n]);
    // Blocks over a chosen set: the last locality only.
    const std::vector<weft::id_type> one = weft::new_<accumulator>(weft::container_layout(3, {all.back()})).get();
    for (const auto& id : one) CHECK(weft::get_locality(id).get() == all.back());
    for (const auto& id : blocks) weft::destroy(id).get();
    for (const auto& id : cyc) weft::destroy(id).get();
    for (const auto& id : one) weft::destroy(id).get();
    // Bad layouts: clear errors.
    CHECK(thrown<weft::error>([&] { (void)weft::new_<accumulator>(weft::container_layout(2, {})); }).has_value());
    CHECK(thrown<weft::error>([&] {
              (void)weft::new_<accumulator>(weft::container_layout(2, {weft::id_type::object(0, 1, 9)}));
          }).has_value());
}

void check_migration_race() {
    const auto all = weft::find_all_localities();
    const std::uint32_t n = weft::get_num_localities();
    const std::int64_t per_locality = (sanitized ? 10'000 : 100'000) / n;
    const weft::id_type id = weft::new_<accumulator>(all.back()).get();
    // In each of `waves` waves, adds from every locality race one migration (to the
    // next locality in turn: back and forth at 2 localities).
    constexpr int waves = 20;
    const std::int64_t per_wave = per_locality / waves;
    for (int w = 0; w < waves; ++w) {
        std::vector<weft::future<std::int64_t>> adds;
        for (std::uint32_t from = 0; from < n; ++from)
            adds.push_back(weft::async(add_from_here_action{}, all[from], id, per_wave));
        const weft::id_type to = all[static_cast<std::size_t>(w) % n];
        weft::future<void> moved = weft::migrate(id, to);
        for (auto& f : adds) CHECK(f.get() == per_wave);
        moved.get();
        CHECK(weft::get_locality(id).get() == to);
    }
    const std::int64_t moves = waves;
    CHECK(weft::async(accumulator::get_action{}, id).get() == per_wave * waves * n);
    CHECK(weft::async(accumulator::count_action{}, id).get() == per_wave * waves * n);
    CHECK(weft::async(accumulator::self_action{}, id).get() == id);  // the new copy knows its id
    std::printf("components: %lld adds from %u localities raced %lld migrations\n",
                static_cast<long long>(per_wave * waves * n), n, static_cast<long long>(moves));
    // A state with a payload (zero-copy sized) moves whole.
    const weft::id_type t = weft::new_<tile>(all[0], std::size_t{100'000}).get();
    weft::async(tile::bump_action{}, t).get();
    weft::migrate(t, all.back()).get();
    weft::async(tile::bump_action{}, t).get();
    CHECK(weft::async(tile::sum_action{}, t).get() == 100'002.0);
    CHECK(weft::get_locality(t).get() == all.back());
    weft::destroy(t).get();
    weft::destroy(id).get();
}

void check_names() {
    const auto all = weft::find_all_localities();
    const std::uint32_t n = weft::get_num_localities();
    std::vector<weft::id_type> mine;
    for (std::uint32_t i = 0; i < n; ++i) mine.push_back(weft::new_<accumulator>(all[i]).get());
    // A find before the registration: ready once it is registered.
    weft::future<weft::id_type> early = weft::find_from_basename("late", 3);
    std::vector<weft::future<std::uint32_t>> sums;
    for (std::uint32_t i = 0; i < n; ++i) sums.push_back(weft::async(names_here_action{}, all[i], mine[i]));
    for (auto& s : sums) CHECK(s.get() == n * (n - 1) / 2);
    CHECK(weft::register_with_basename("late", mine.back(), 3).get());
    CHECK(early.get() == mine.back());
    CHECK(!weft::register_with_basename("late", mine[0], 3).get());  // taken
    CHECK(weft::find_from_basename("late", 3).get() == mine.back());
    // Every locality races for one name: exactly one wins.
    std::vector<weft::future<bool>> race;
    for (std::uint32_t i = 0; i < n; ++i) race.push_back(weft::async(race_for_name_action{}, all[i], mine[i]));
    int winners = 0;
    for (auto& r : race) winners += r.get() ? 1 : 0;
    CHECK(winners == 1);
    const weft::id_type winner = weft::find_from_basename("contested").get();
    CHECK(std::find(mine.begin(), mine.end(), winner) != mine.end());
    // The form: a future id (a new_ call's), registered once ready; and shared.
    weft::future<weft::id_type> made = weft::new_<accumulator>(all.back(), std::int64_t{41});
    CHECK(weft::register_with_basename("made", std::move(made), 1).get());
    const weft::id_type found = weft::find_from_basename("made", 1).get();
    CHECK(weft::async(accumulator::get_action{}, found).get() == 41);
    weft::shared_future<weft::id_type> shared = weft::make_ready_future(found).share();
    CHECK(!weft::register_with_basename("made", shared, 1).get());  // taken
    CHECK(weft::unregister_with_basename("made", 1).get() == found);
    CHECK(!weft::unregister_with_basename("made", 1).get());  // no longer there
    CHECK(weft::register_with_basename("made", shared, 1).get());
    CHECK(weft::unregister_with_basename("made", 1).get() == found);
    weft::destroy(found).get();
    for (const auto& id : mine) weft::destroy(id).get();
}

void check_errors() {
    const auto all = weft::find_all_localities();
    // Destroy then call: a clear weft::error, from here and from the object's locality.
    const weft::id_type gone = weft::new_<accumulator>(all.back()).get();
    weft::destroy(gone).get();
    auto e = thrown<weft::error>([&] { (void)weft::async(accumulator::get_action{}, gone).get(); });
    CHECK(e && e->find("no component") != std::string::npos);
    CHECK(thrown<weft::error>([&] { weft::destroy(gone).get(); }).has_value());  // twice
    CHECK(thrown<weft::error>([&] { weft::migrate(gone, all[0]).get(); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)weft::get_locality(gone).get(); }).has_value());
    // Not migratable: journal holds a mutex and has no serialize function.
    const weft::id_type j = weft::new_<journal>(all.back(), std::string("log")).get();
    CHECK(!j.is_migratable());
    CHECK(weft::async(journal::append_action{}, j, std::string("a")).get() == 1);
    CHECK(weft::async(journal::append_action{}, j, std::string("b")).get() == 2);
    CHECK(weft::async(journal::name_action{}, j).get() == "log");
    CHECK(weft::get_locality(j).get() == all.back());
    auto m = thrown<weft::error>([&] { (void)weft::migrate(j, all[0]); });
    CHECK(m && m->find("cannot migrate") != std::string::npos);
    // An action's exception reaches the future as its own type.
    auto x = thrown<std::invalid_argument>([&] { weft::async(journal::fail_action{}, j, std::string("bad")).get(); });
    CHECK(x && *x == "log: bad");
    // An action of another component type on this id: refused, never run on the wrong object.
    auto t = thrown<weft::error>([&] { (void)weft::async(accumulator::get_action{}, j).get(); });
    CHECK(t && t->find("is an action of") != std::string::npos);
    // Ids that are not components'.
    CHECK(thrown<weft::error>([&] { (void)weft::async(accumulator::get_action{}, all[0]); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)weft::async(accumulator::get_action{}, weft::id_type{}); }).has_value());
    CHECK(thrown<weft::error>([&] { (void)weft::new_<accumulator>(j); }).has_value());  // not a locality
    const int before = destroyed_here.load();
    weft::destroy(j).get();
    if (all.size() == 1) CHECK(destroyed_here.load() == before + 1);
    // A client destroys its component when the last copy goes.
    weft::id_type owned;
    {
        weft::client<accumulator> c(weft::new_<accumulator>(all.back()));
        owned = c.get_id();
        weft::client<accumulator> copy = c;
        weft::async(accumulator::add_action{}, copy.get_id(), std::int64_t{2}).get();
        CHECK(weft::async(accumulator::get_action{}, owned).get() == 2);
    }
    CHECK(thrown<weft::error>([&] { (void)weft::async(accumulator::get_action{}, owned).get(); }).has_value());
}

void check_promises() {
    const auto all = weft::find_all_localities();
    const std::uint32_t n = weft::get_num_localities();
    // Made here, set on the last locality (a third party when n > 2: the call comes from 0).
    weft::distributed::promise<int> value;
    weft::distributed::promise<> done;
    weft::distributed::promise<double> failed;
    CHECK(value.get_id().is_lco());
    CHECK(value.get_id().locality_id() == weft::get_locality_id());
    weft::future<int> fv = value.get_future();
    weft::future<void> fd = done.get_future();
    weft::future<double> ff = failed.get_future();
    CHECK(thrown<weft::error>([&] { (void)value.get_future(); }).has_value());  // once
    weft::post(set_promises_action{}, all.back(), value.get_id(), done.get_id(), failed.get_id(), 42);
    CHECK(fv.get() == 42);
    fd.get();
    auto x = thrown<std::out_of_range>([&] { (void)ff.get(); });
    CHECK(x && *x == "far away");
    // Locality i makes a promise that locality i+1 sets.
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t setter = (i + 1) % n;
        CHECK(weft::async(promise_via_action{}, all[i], setter).get() ==
              "from " + std::to_string(setter) + " to " + std::to_string(i));
    }
    // Set here: a second set is an error; a non-promise id is refused.
    weft::distributed::promise<int> local;
    weft::future<int> fl = local.get_future();
    weft::set_lco_value(local.get_id(), 7);
    CHECK(fl.get() == 7);
    CHECK(thrown<weft::error>([&] { weft::set_lco_value(local.get_id(), 8); }).has_value());
    CHECK(thrown<weft::error>([&] { weft::set_lco_value(all[0], 8); }).has_value());
}

/// The distributed latch, channel and barrier (run by locality 0's main task; the
/// other localities take part through actions).
void check_lcos() {
    const auto all = weft::find_all_localities();
    const std::uint32_t n = weft::get_num_localities();
    // A latch every locality counts down and waits on.
    {
        wd::latch arrivals = wd::latch::create("arrivals", n);
        CHECK(!arrivals.try_wait());
        std::vector<weft::future<bool>> opened;
        for (const auto& l : all) opened.push_back(weft::async(arrive_at_latch_action{}, l));
        for (auto& f : opened) CHECK(f.get());
        CHECK(arrivals.try_wait());
        arrivals.wait();  // open: returns at once
        const auto past = thrown<weft::lco_error>([&] { arrivals.count_down(1); });
        CHECK(past && past->find("past zero") != std::string::npos);
        CHECK(thrown<weft::error>([] { (void)wd::latch::create("arrivals", 1); }).value_or("").find("taken") !=
              std::string::npos);
    }
    {
        // Misuse and release: a negative count; a waiter when the owner lets go.
        auto l = wd::latch::create("orphan", 2);
        CHECK(thrown<weft::lco_error>([&] { l.count_down(-1); }).has_value());
        l.count_down(1);
        weft::future<std::string> waiter = weft::async(wait_for_latch_action{}, all.back(), l.get_id());
        l = wd::latch{};  // the last owning handle: waiters fail, the latch goes
        const std::string how = waiter.get();
        CHECK(how == "released" || how == "destroyed");
        CHECK(thrown<weft::lco_error>([] { (void)wd::latch::create("negative", -1); }).has_value());
        CHECK(thrown<weft::error>([] { wd::latch{}.wait(); }).value_or("").find("empty handle") != std::string::npos);
        // The name was unregistered: it can be taken again.
        auto again = wd::latch::create("orphan", 0);
        CHECK(again.try_wait());
    }
    // Ping-pong between locality 0 and the last locality, each end on its own channel.
    {
        auto ping = wd::channel<std::int64_t>::create("ping");
        wd::promise<void> ready;
        weft::future<void> pong_made = ready.get_future();
        weft::future<std::int64_t> answered = weft::async(ponger_action{}, all.back(), ready.get_id());
        pong_made.get();
        auto pong = wd::channel<std::int64_t>::connect("pong");
        constexpr std::int64_t rounds = 200;
        for (std::int64_t i = 0; i < rounds; ++i) {
            ping.send(2 * i);
            CHECK(pong.receive() == 2 * i + 1);
        }
        ping.close();
        CHECK(answered.get() == rounds);
        CHECK(thrown<weft::channel_closed>([&] { ping.send(1); }).has_value());
        CHECK(thrown<weft::channel_closed>([&] { (void)ping.receive(); }).has_value());
    }
    // Many senders, one bounded channel: every value once, each sender's in order.
    {
        auto c = wd::channel<std::pair<std::uint32_t, std::int64_t>>::create("numbers", 4);
        constexpr std::int64_t per = 100;
        std::vector<weft::future<void>> senders;
        for (const auto& l : all) senders.push_back(weft::async(send_numbered_action{}, l, c.get_id(), per));
        std::vector<std::int64_t> next(n, 0);
        for (std::int64_t k = 0; k < per * n; ++k) {
            const auto [from, i] = c.receive();
            CHECK(from < n && i == next[from]);
            if (from < n) next[from] = i + 1;
        }
        for (auto& f : senders) f.get();
        CHECK(!c.async_receive().is_ready());  // nothing left over; the future fails at close
    }
    // Barriers: every locality, 20 phases; and a sub-group of the first and last.
    {
        const weft::id_type tally = weft::new_<accumulator>(all[0]).get();
        std::vector<weft::future<std::int64_t>> phases;
        for (const auto& l : all) phases.push_back(weft::async(barrier_rounds_action{}, l, tally, std::int64_t{20}));
        for (auto& f : phases) CHECK(f.get() == 0);
        CHECK(weft::async(accumulator::get_action{}, tally).get() == 20 * std::int64_t{n});
        weft::destroy(tally).get();
        std::vector<weft::id_type> ends{all.front()};
        if (n > 1) ends.push_back(all.back());
        std::vector<weft::future<std::int64_t>> sub;
        for (const auto& l : ends) sub.push_back(weft::async(subset_barrier_action{}, l, ends, std::int64_t{5}));
        for (auto& f : sub) CHECK(f.get() == 5);
    }
    std::printf("components: latch, channel ping-pong and barrier over %u localities\n", n);
}

/// The /agas counters of locality 0 since `set` was made (at the start of the run).
void check_counters(weft::counters::counter_set& set) {
    const auto v = set.evaluate();
    CHECK(v.size() == 4);
    if (v.size() == 4) {
        CHECK(v[0].available && v[0].value > 0);  // every call above resolved its target
        // Locality 0 is the home of a migrated object (migrations to itself at one locality).
        CHECK(v[3].available && (weft::get_num_localities() == 1 || v[3].value > 0));
        std::printf("components: locality 0 resolved %.0f ids (%.0f cache hits, %.0f misses), ran %.0f migrations\n",
                    v[0].value, v[1].value, v[2].value, v[3].value);
    }
}

int run_all() {
    weft::counters::counter_set agas = weft::counters::query(
        {"/agas{locality#0/total}/count/resolve", "/agas{locality#0/total}/count/cache-hits",
         "/agas{locality#0/total}/count/cache-misses", "/agas{locality#0/total}/count/migrations"});
    check_everywhere();
    check_layouts();
    check_migration_race();
    check_names();
    check_errors();
    check_promises();
    check_lcos();
    check_counters(agas);
    return failures;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "all";
    if (mode != "all" && mode != "leak") {
        std::fprintf(stderr, "usage: components [all|leak] [--weft:...]\n");
        return 2;
    }
    const int rc = weft::run(argc, argv, [&](int, char**) -> int {
        if (mode == "all") return run_all();
        // leak: one component on every locality, left alive.
        for (const auto& l : weft::find_all_localities()) (void)weft::new_<journal>(l, std::string("left")).get();
        return 0;
    });
    if (mode == "leak" && destroyed_here.load() != 1) {
        std::fprintf(stderr, "locality %u: %d journals destroyed at stop, expected 1\n", weft::get_locality_id(),
                     destroyed_here.load());
        return 1;
    }
    std::printf("components %s: locality done, %d failures\n", mode.c_str(), failures);
    return rc != 0 ? rc : failures;
}
