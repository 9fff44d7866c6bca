// weft's side of issue #23's distributed probes: the same round trips and message rate as
// bench/distributed/mpi_probe.cpp, with weft's actions (scripts/distributed_bench runs
// both, alternating, and prints weft/MPI). See probe_common.hpp for the method and the
// output lines. Everything is driven from locality 0 (weft::run's fn runs there only; no
// --weft:spmd needed), the other localities serve actions.
//
// (a) Round trip from locality 0 to 1:
//     impl=weft-vector  buf = weft::async(echo_action{}, loc1, std::move(buf)).get(), echo
//                       being std::vector<char> echo(std::vector<char>): the vector moves
//                       into the call, so runs >= the zero-copy threshold (64 KiB) travel
//                       as chunks without a copy on the sending side, both ways
//     impl=weft-buffer  the same with weft::serialization::buffer<char> (a vector that
//                       is not zeroed when allocated: the decoder writes each byte once)
//     impl=weft-u64     (8 B only) int ping(std::uint64_t): the smallest parcel there is
//                       with an argument and a result
//     impl=weft-component  (8 B only, issue #24) the same ping as an action of a
//                       migratable component living on locality 1 (resolved through the
//                       cache or its home, pinned while it runs): against weft-u64, the
//                       cost of calling an object rather than a locality
//     impl=weft-channel (8 B only, issue #24) a ping-pong through two distributed
//                       channels of std::uint64_t, "probe-ping" on locality 0 and
//                       "probe-pong" on locality 1 (each receive is an action waiting at
//                       the channel's locality): against weft-u64, the cost of a
//                       distributed LCO
//     impl=weft-migrate (64 KiB and up, issue #24) a component whose state is a
//                       buffer<char> of that size migrates to locality 1 and back: one
//                       "round trip" is two migrations (each: extract, install, record,
//                       release), against MPI's round trip of the same bytes
// (b) Message rate, impl=weft-post: locality 0 asks each locality r < n/2 (itself too, as a
//     local task) to run stream(r + n/2, M): it reads the partner's counter (a round trip
//     outside the timing), then posts M empty actions `void nothing()` (each adds 1 to a
//     counter on the partner) one way, and calls weft::async(received_count_action{},
//     partner).get() in a loop until the partner's counter has grown by M; the seconds
//     from the first post to that answer give M / seconds for the pair, nothing subtracted;
//     the run's rate is the sum over the pairs. The streams start within a round trip of
//     each other (locality 0 starts them one after the other).
//
// Run: mpirun -np 2 bench_distributed_weft_probe --weft:threads=1 (as root with the
// OMPI_ALLOW_RUN_AS_ROOT variables; see scripts/distributed_bench).
#include "distributed/probe_common.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

// --- Actions --------------------------------------------------------------------------

std::vector<char> echo(std::vector<char> v) { return v; }
WEFT_PLAIN_ACTION(echo, echo_action);

weft::serialization::buffer<char> echo_buffer(weft::serialization::buffer<char> v) { return v; }
WEFT_PLAIN_ACTION(echo_buffer, echo_buffer_action);

int ping(std::uint64_t x) { return static_cast<int>(x & 0xffff); }
WEFT_PLAIN_ACTION(ping, ping_action);

/// A migratable component answering pings (trivially copyable).
struct pinger : weft::component<pinger> {
    int ping(std::uint64_t x) const { return static_cast<int>(x & 0xffff); }
    WEFT_COMPONENT_ACTION(pinger, ping, ping_action);
};
WEFT_REGISTER_COMPONENT(pinger);

/// A component whose state is bulk bytes (migrates through its serialize function).
struct blob : weft::component<blob> {
    weft::serialization::buffer<char> bytes;
    blob() = default;
    explicit blob(std::size_t n) : bytes(n, 'x') {}
    template <class Archive>
    void serialize(Archive& ar) {
        ar(bytes);
    }
    std::size_t size() const { return bytes.size(); }
    WEFT_COMPONENT_ACTION(blob, size, size_action);
};
WEFT_REGISTER_COMPONENT(blob);

/// The far end of the channel ping-pong: echoes each value of channel "probe-ping" (on
/// locality 0) on its own channel "probe-pong" until it receives the stop value; `made`
/// is set once "probe-pong" exists. Returns how many it echoed.
std::uint64_t channel_echo(weft::id_type made) {
    namespace wd = weft::distributed;
    auto pong = wd::channel<std::uint64_t>::create("probe-pong");
    weft::set_lco_value(made);
    auto ping = wd::channel<std::uint64_t>::connect("probe-ping");
    std::uint64_t echoed = 0;
    for (std::uint64_t v = ping.receive(); v != ~std::uint64_t{0}; v = ping.receive(), ++echoed) pong.send(v);
    return echoed;
}
WEFT_PLAIN_ACTION(channel_echo, channel_echo_action);

namespace {
std::atomic<std::uint64_t> received{0};
}

void nothing() { received.fetch_add(1, std::memory_order_relaxed); }  // relaxed: a count read by polls
WEFT_PLAIN_ACTION(nothing, nothing_action);

std::uint64_t received_count() { return received.load(std::memory_order_relaxed); }
WEFT_PLAIN_ACTION(received_count, received_count_action);

/// Posts `msgs` nothing_actions to locality `partner` and waits until it has run them all;
/// returns the seconds from the first post to the answer that says so.
double stream(std::uint32_t partner, std::uint64_t msgs) {
    weft::id_type const to = weft::find_locality(partner);
    std::uint64_t const target = weft::async(received_count_action{}, to).get() + msgs;
    auto const t0 = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < msgs; ++i) weft::post(nothing_action{}, to);
    while (weft::async(received_count_action{}, to).get() < target) {
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
WEFT_PLAIN_ACTION(stream, stream_action);

// --- Measurements (on locality 0) -------------------------------------------------------

namespace {

namespace pd = weft::bench::distributed;
using clock_type = std::chrono::steady_clock;

/// Batches of round trips, as mpi_probe times them: `one(i)` is one round trip.
template <class F>
void measure_latency(pd::probe_options const& o, std::size_t size, char const* impl, F one) {
    auto timed = [&](unsigned reps) {
        auto const t0 = clock_type::now();
        for (unsigned i = 0; i < reps; ++i) one(i);
        return std::chrono::duration<double>(clock_type::now() - t0).count() / reps;
    };
    unsigned const reps = pd::warm_up(o, timed);
    std::vector<double> means;
    for (unsigned b = 0; b < o.batches; ++b) means.push_back(timed(reps));
    pd::print_latency(size, impl, weft::get_num_localities(), means, reps);
}

int latency(pd::probe_options const& o) {
    weft::id_type const peer = weft::find_locality(1);
    int wrong = 0;
    for (std::size_t size : o.sizes) {
        std::vector<char> buf(size, 'x');
        measure_latency(o, size, "weft-vector", [&](unsigned) {
            buf = weft::async(echo_action{}, peer, std::move(buf)).get();
            if (buf.size() != size || buf.front() != 'x') ++wrong;
        });
        weft::serialization::buffer<char> bulk(size, 'x');
        measure_latency(o, size, "weft-buffer", [&](unsigned) {
            bulk = weft::async(echo_buffer_action{}, peer, std::move(bulk)).get();
            if (bulk.size() != size || bulk.front() != 'x') ++wrong;
        });
        if (size == 8) {
            measure_latency(o, size, "weft-u64", [&](unsigned i) {
                if (weft::async(ping_action{}, peer, std::uint64_t{i}).get() != static_cast<int>(i & 0xffff)) ++wrong;
            });
            weft::id_type const p = weft::new_<pinger>(peer).get();
            measure_latency(o, size, "weft-component", [&](unsigned i) {
                if (weft::async(pinger::ping_action{}, p, std::uint64_t{i}).get() != static_cast<int>(i & 0xffff))
                    ++wrong;
            });
            weft::destroy(p).get();
            // Distributed channels (issue #24): ping lives here, pong on the peer; a round
            // trip is a send here, the peer's pending receive answered, its send there,
            // and this locality's pending receive answered.
            namespace wd = weft::distributed;
            auto ping_channel = wd::channel<std::uint64_t>::create("probe-ping");
            wd::promise<void> made;
            weft::future<void> pong_made = made.get_future();
            weft::future<std::uint64_t> echoed = weft::async(channel_echo_action{}, peer, made.get_id());
            pong_made.get();
            auto pong_channel = wd::channel<std::uint64_t>::connect("probe-pong");
            std::uint64_t sent = 0;
            measure_latency(o, size, "weft-channel", [&](unsigned i) {
                ping_channel.send(i);
                ++sent;
                if (pong_channel.receive() != i) ++wrong;
            });
            ping_channel.send(~std::uint64_t{0});
            if (echoed.get() != sent) ++wrong;
        }
        if (size >= 64 * 1024) {
            weft::id_type const b = weft::new_<blob>(weft::find_here(), size).get();
            measure_latency(o, size, "weft-migrate", [&](unsigned) {
                weft::migrate(b, peer).get();
                weft::migrate(b, weft::find_here()).get();
            });
            if (weft::async(blob::size_action{}, b).get() != size) ++wrong;
            weft::destroy(b).get();
        }
    }
    if (wrong != 0) std::fprintf(stderr, "weft_probe: %d wrong answers in the round trips\n", wrong);
    return wrong;
}

/// One run of every pair's stream; the sum of the pairs' rates, and the slowest pair's.
double streams(std::uint32_t pairs, std::uint64_t msgs, double* slowest = nullptr) {
    std::vector<weft::future<double>> fs;
    for (std::uint32_t r = 0; r < pairs; ++r)
        fs.push_back(weft::async(stream_action{}, weft::find_locality(r), r + pairs, msgs));
    double sum = 0, lowest = 0;
    for (std::uint32_t r = 0; r < pairs; ++r) {
        double const pair_rate = static_cast<double>(msgs) / fs[r].get();
        sum += pair_rate;
        lowest = r == 0 ? pair_rate : std::min(lowest, pair_rate);
    }
    if (slowest != nullptr) *slowest = lowest;
    return sum;
}

void rate(pd::probe_options const& o) {
    std::uint32_t const n = weft::get_num_localities();
    std::uint32_t const pairs = n / 2;
    // Warm-up: 20,000 posts per pair, then as many as that rate says one timed run takes;
    // the timed runs' size from the slowest pair's rate in the second.
    double slowest = 0;
    streams(pairs, 20'000, &slowest);
    streams(pairs, pd::rate_messages_for(o, slowest), &slowest);
    std::uint64_t const msgs = pd::rate_messages_for(o, slowest);
    std::vector<double> runs;
    for (unsigned r = 0; r < o.rate_reps; ++r) runs.push_back(streams(pairs, msgs));
    pd::print_rate("weft-post", n, pairs, runs, msgs);
}

}  // namespace

int main(int argc, char** argv) {
    pd::probe_options const o = pd::parse_probe_options(argc, argv);
    return weft::run(argc, argv, [&](int, char**) -> int {
        if (weft::get_num_localities() < 2) {
            std::fprintf(stderr, "weft_probe: needs at least 2 localities (mpirun -np 2 ...)\n");
            return 2;
        }
        int rc = 0;
        if (o.latency) rc = latency(o);
        if (o.rate) rate(o);
        return rc == 0 ? 0 : 1;
    });
}
