// The distributed layer's running part (issues #23, #24): this locality, the parcels it
// receives (calls run as tasks; results complete the caller's future; component calls
// run on their object, or are held or forwarded: agas.cpp), global termination, and the
// functions of weft/distributed/locality.hpp.
#include "agas.hpp"
#include "remote_counters.hpp"
#include "transport.hpp"

#include <weft/config/errors.hpp>
#include <weft/counters/detail/service.hpp>
#include <weft/distributed/action.hpp>
#include <weft/distributed/async.hpp>
#include <weft/distributed/continuations.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/distributed/detail/runtime_hooks.hpp>
#include <weft/distributed/lcos.hpp>
#include <weft/distributed/locality.hpp>
#include <weft/ext/background_work.hpp>
#include <weft/sched/detail/suspend.hpp>
#include <weft/sched/post.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <mutex>
#include <thread>
#include <tuple>

namespace weft::distributed::detail {
namespace {

struct locality_state {
    std::unique_ptr<transport> net;  ///< null: one locality
    std::uint32_t here = 0;
    std::uint32_t count = 1;
    launch_config cfg;
    ext::background_work_id poll_id = 0;
    bool polling = false;
    // Written before the workers run parcels and read by them after (the scheduler's
    // start and the background work's registration order them).
    std::atomic<bool> running{false};
    std::atomic<std::uint64_t> rejected{0};  ///< parcels whose payload did not decode
};

locality_state& state() {
    static locality_state s;
    return s;
}

// Locality 0's main function has returned: the others may start termination waves (until
// then they would only keep a collective pending, which slows every MPI call they make).
std::mutex main_done_mutex;
std::condition_variable main_done_cv;
bool main_done = false;

}  // namespace

void weft_main_done() {
    const std::lock_guard lock(main_done_mutex);
    main_done = true;
    main_done_cv.notify_all();
}
WEFT_PLAIN_ACTION(weft_main_done, weft_main_done_action);

namespace {

continuation_table& table() {
    static continuation_table t;
    return t;
}

transport& net() noexcept { return *state().net; }

bool poll(void* arg, unsigned) noexcept {
    return static_cast<transport*>(arg)->progress(ext::background_caller_idle());
}

serialization::output_archive& result_archive() { return scratch_archive(); }

/// The chunks of a received parcel, received from its sender when its decoder gets to them.
class remote_chunks final : public serialization::chunk_source {
public:
    remote_chunks(const parcel_view& v) : source_(v.header.source), tag_(v.header.chunk_tag) {
        for (std::size_t i = 0; i < v.header.chunks; ++i)
            chunks_.push_back({nullptr, static_cast<std::size_t>(v.chunk_size(i))});
    }
    void receive(std::size_t index, std::byte* destination, std::size_t size) override {
        net().receive_chunk(source_, tag_ + static_cast<std::uint32_t>(index), destination, size);
    }
    /// Receives and drops the chunks a failed decode left (their sender waits for them).
    void drain(std::size_t used) {
        for (std::size_t i = used; i < chunks_.size(); ++i) {
            std::vector<std::byte> sink(chunks_[i].size);
            receive(i, sink.data(), sink.size());
        }
    }
    std::span<const serialization::chunk> chunks() const noexcept { return chunks_; }

private:
    std::uint32_t source_, tag_;
    std::vector<serialization::chunk> chunks_;
};

void report_rejected(const parcel_view& v, const char* what, const std::string& why) {
    state().rejected.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    net().stats.parcels_rejected.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    std::fprintf(stderr, "weft: locality %u rejected a parcel from locality %u: %s: %s\n", state().here,
                 v.header.source, what, why.c_str());
    std::fflush(stderr);
}

/// Where a call's answer goes: its caller's locality.
std::uint32_t answer_locality(const parcel_header& h) noexcept {
    return h.kind == parcel_kind::component_call ? h.origin : h.source;
}

/// Answers call `h` with the result in `out` (a component call may have come back to
/// the locality that made it: its future is completed here).
void answer_result(const parcel_header& h, const serialization::output_archive& out,
                   std::shared_ptr<const void> keep) {
    if (h.continuation == 0) return;
    const std::uint32_t to = answer_locality(h);
    if (to == state().here) {
        serialization::input_archive in(out.bytes(), out.chunks());
        if (!table().complete(h.continuation, in))
            std::fprintf(stderr, "weft: locality %u: a result for continuation %llu, which nobody waits for\n",
                         state().here, static_cast<unsigned long long>(h.continuation));
        return;
    }
    send_parcel(to, parcel_kind::result, 0, h.continuation, out, std::move(keep));
}

/// Answers call `h` (continuation not 0) with the exception `e`.
void answer_exception(const parcel_header& h, const std::exception_ptr& e) {
    const std::uint32_t to = answer_locality(h);
    if (to == state().here) {
        table().fail(h.continuation, e);
        return;
    }
    serialization::output_archive& out = scratch_archive();
    encode_exception(out, e, state().here);
    send_parcel(to, parcel_kind::exception, 0, h.continuation, out, nullptr);
}

/// Runs a decoded call: `invoke` decodes the arguments from `in` and runs the action;
/// `done` runs once it has returned or thrown (drains chunks, releases the frame or the
/// object); then the call is answered. `name` is the action's.
template <class Invoke, class Done>
void run_and_answer(const parcel_header& h, std::string_view name, serialization::input_archive& in,
                    Invoke&& invoke, Done&& done, const parcel_view* rejected_view) {
    bool decoded = false;
    std::shared_ptr<const void> keep;
    std::exception_ptr error;
    try {
        keep = invoke(in, decoded);
    } catch (...) {
        error = std::current_exception();
    }
    done(error != nullptr);
    if (!error) {
        // The result is in this thread's archive (invoke encoded it after the function
        // returned, on the thread the task runs on now); a void result too, in an emptied one.
        answer_result(h, scratch_archive(false), std::move(keep));
        return;
    }
    if (!decoded && rejected_view != nullptr) {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            report_rejected(*rejected_view, name.data(), std::string("its arguments do not decode: ") + e.what());
        }
    }
    if (h.continuation == 0) {
        if (decoded) posted_action_failed(name, error);
        return;
    }
    answer_exception(h, error);
}

/// A call parcel: decode, run, answer. The view is a copy: the batch it came from may be
/// gone by the time a call that suspended returns.
void run_plain_call(frame* f, const parcel_view v, const action_entry* action) {
    remote_chunks chunks(v);
    serialization::input_archive in(v.payload, chunks.chunks(), &chunks);
    run_and_answer(
        v.header, action->name, in,
        [action](serialization::input_archive& a, bool& decoded) { return action->invoke(a, &result_archive, decoded); },
        [&](bool failed) {
            if (failed) chunks.drain(in.chunks_used());
            net().release(f);
        },
        &v);
}

/// A component call that does not run here now: its payload, and its chunks received
/// from their sender, in memory.
held_parcel hold(frame* f, const parcel_view& v) {
    held_parcel p;
    p.h = v.header;
    p.payload.assign(v.payload.begin(), v.payload.end());
    if (v.header.chunks != 0) {
        remote_chunks chunks(v);
        auto data = std::make_shared<std::vector<serialization::buffer<std::byte>>>();
        for (std::size_t i = 0; i < v.header.chunks; ++i) {
            data->emplace_back(static_cast<std::size_t>(v.chunk_size(i)));
            chunks.receive(i, data->back().data(), data->back().size());
            p.chunks.push_back({data->back().data(), data->back().size()});
        }
        p.keep = std::move(data);
    }
    net().release(f);
    return p;
}

/// A component call parcel: run on its object if it takes calls here, else routed
/// (held, forwarded or failed: agas_route).
void run_component_call(frame* f, const parcel_view v, const action_entry* action) {
    const id_type target = call_target(v.payload);
    local_ref ref;
    found where = found::absent;
    std::exception_ptr error;
    try {
        if (action->invoke_on == nullptr || !target.is_component())
            throw serialization_error("weft: a component call to " + target.to_string() + " with action " +
                                      std::string(action->name) + " (not a component action, or not a component)");
        where = agas_acquire(target, *action->component, action->name, ref);
    } catch (...) {
        error = std::current_exception();
    }
    if (error || where != found::live) {
        held_parcel p = hold(f, v);
        if (error) {
            if (p.h.continuation != 0) answer_exception(p.h, error);
            else posted_action_failed(action->name, error);
            return;
        }
        agas_route(std::move(p));
        return;
    }
    if (v.header.hops != 0) agas_note_location(v.header.origin, target);
    remote_chunks chunks(v);
    serialization::input_archive in(v.payload.subspan(sizeof(id_type)), chunks.chunks(), &chunks);
    run_and_answer(
        v.header, action->name, in,
        [action, &ref](serialization::input_archive& a, bool& decoded) {
            return action->invoke_on(ref.get(), a, &result_archive, decoded);
        },
        [&](bool failed) {
            ref.reset();
            if (failed) chunks.drain(in.chunks_used());
            net().release(f);
        },
        &v);
}

void run_call(frame* f, const parcel_view v, const action_entry* action) {
    net().backlog.fetch_sub(1, std::memory_order_relaxed);  // relaxed: a bound on receiving (transport.hpp)
    if (v.header.kind == parcel_kind::component_call) run_component_call(f, v, action);
    else run_plain_call(f, v, action);
}

/// A result or exception parcel: completes the caller's future.
void complete(frame* f, const parcel_view& v, serialization::input_archive& in, remote_chunks* chunks) {
    bool known = false;
    if (v.header.kind == parcel_kind::result) {
        known = table().complete(v.header.continuation, in);
    } else {
        std::exception_ptr x;
        try {
            x = decode_exception(in);
        } catch (...) {
            x = std::current_exception();
        }
        known = table().fail(v.header.continuation, x);
    }
    if (chunks != nullptr) chunks->drain(in.chunks_used());
    if (!known) report_rejected(v, "a result", "nobody waits for continuation " + std::to_string(v.header.continuation));
    net().release(f);
}

/// The calls of one message, run in order by one task (run_batch). Each call costing a
/// task of its own made the receiving side of a stream of small parcels the slower one
/// (task creation, queueing and the scheduler's clock reads were most of its cost). Two
/// things keep a batch from holding calls back:
/// - a call that suspends hands the calls after it to a new task (the scheduler's
///   suspend hook), so no call waits for another's wait;
/// - before each call, while another worker spins idle, the batch gives it half of the
///   calls left as a new task (lazy binary splitting, driven by idle workers rather than
///   by a grain size: Tzannes et al., PPoPP 2010); a parked worker is woken for half only
///   once the batch has run wake_parked_after, so a message of short calls does not wake
///   the machine but one of long calls spreads.
struct call_batch {
    frame* f;
    std::vector<parcel_view> calls;
    std::size_t next = 0;  ///< the first call not started
    std::size_t end = 0;   ///< one past the last call of this batch
    std::chrono::steady_clock::time_point since{};  ///< first looked at parked workers, or last split
};

constexpr auto wake_parked_after = std::chrono::microseconds(100);

/// Whether to give half of what is left to another worker now.
bool split_now(call_batch* b) {
    const weft::detail::idle_workers_now idle = weft::detail::idle_workers();
    if (idle.spinning) return true;
    if (!idle.parked) return false;
    const auto now = std::chrono::steady_clock::now();
    if (b->since == std::chrono::steady_clock::time_point{}) b->since = now;
    if (now - b->since < wake_parked_after) return false;
    b->since = now;
    return true;
}

void run_batch(call_batch* b);

void post_batch(call_batch* b) {
    weft::post(task_attributes{task_priority::normal, "weft: calls of a message"}, [b] { run_batch(b); });
}

/// The suspend hook's state, on the stack of the task that runs a call.
struct batch_hook {
    call_batch* b;
    bool fired = false;   ///< the call suspended (the hook is gone)
    bool handed = false;  ///< and the calls after it went to a new task, with the batch
};

void hand_on(void* arg) noexcept {
    auto* h = static_cast<batch_hook*>(arg);
    h->fired = true;
    try {
        post_batch(h->b);
        h->handed = true;
    } catch (...) {
        // No memory for the task: the calls after this one wait until it resumes.
    }
}

void run_batch(call_batch* b) {
    while (b->next < b->end) {
        if (b->end - b->next >= 2 && split_now(b)) {
            // Half of the calls left, to a worker that idles; the rest stay here.
            const std::size_t mid = b->next + (b->end - b->next) / 2;
            try {
                auto rest = std::make_unique<call_batch>(call_batch{b->f, {}, 0, 0, {}});
                rest->calls.assign(b->calls.begin() + static_cast<std::ptrdiff_t>(mid),
                                   b->calls.begin() + static_cast<std::ptrdiff_t>(b->end));
                rest->end = rest->calls.size();
                post_batch(rest.get());
                rest.release();  // the new task's now
                b->end = mid;
            } catch (...) {
                // No memory: this task runs them all.
            }
        }
        const parcel_view v = b->calls[b->next++];
        const action_entry* action = action_table::instance().find(v.header.action);  // checked by split_message
        batch_hook h{b};
        const bool more = b->next < b->end;
        if (more) weft::detail::set_suspend_hook({&hand_on, &h});
        run_call(b->f, v, action);
        if (h.handed) return;  // the batch is the new task's now
        if (more && !h.fired) weft::detail::clear_suspend_hook();
    }
    delete b;
}

/// A result or exception parcel whose payload is here.
void deliver_result(frame* f, const parcel_view& v) {
    if (v.header.chunks == 0) {
        serialization::input_archive in(v.payload);
        complete(f, v, in, nullptr);
        return;
    }
    // A result with chunks to receive: in a task, which may wait for them.
    weft::post(task_attributes{task_priority::high, "weft: receive a result"}, [f, v] {
        remote_chunks chunks(v);
        serialization::input_archive in(v.payload, chunks.chunks(), &chunks);
        complete(f, v, in, &chunks);
    });
}

/// The transport's delivery: runs under its progress lock, on a worker's loop. Results
/// complete their futures here; calls run as tasks (one message's calls as one batch).
void deliver(frame* f, std::span<const parcel_view> parcels) {
    std::size_t calls = 0;
    const parcel_view* first_call = nullptr;
    auto is_call = [](const parcel_view& v) {
        return v.header.kind == parcel_kind::call || v.header.kind == parcel_kind::component_call;
    };
    for (const parcel_view& v : parcels) {
        if (!is_call(v)) {
            deliver_result(f, v);
            continue;
        }
        if (first_call == nullptr) first_call = &v;
        ++calls;
    }
    if (calls == 0) return;
    // relaxed: a bound on receiving (transport.hpp).
    net().backlog.fetch_add(static_cast<std::int64_t>(calls), std::memory_order_relaxed);
    if (calls == 1) {
        const parcel_view v = *first_call;
        const action_entry* action = action_table::instance().find(v.header.action);  // checked by split_message
        weft::post(task_attributes{task_priority::normal, action->name.data()},
                   [f, v, action] { run_call(f, v, action); });
        return;
    }
    auto* b = new call_batch{f, {}, 0, 0, {}};
    b->calls.reserve(calls);
    for (const parcel_view& v : parcels)
        if (is_call(v)) b->calls.push_back(v);
    b->end = calls;
    post_batch(b);
}

counters::detail::network_stats read_stats() noexcept {
    counters::detail::network_stats s;
    const agas_stats a = agas_read_stats();
    s.agas_resolves = static_cast<double>(a.resolves);
    s.agas_cache_hits = static_cast<double>(a.cache_hits);
    s.agas_cache_misses = static_cast<double>(a.cache_misses);
    s.agas_migrations = static_cast<double>(a.migrations);
    const locality_state& st = state();
    if (!st.net) return s;
    const transport_stats& t = st.net->stats;
    // relaxed (all): statistics.
    s.parcels_sent = static_cast<double>(t.parcels_sent.load(std::memory_order_relaxed));
    s.parcels_received = static_cast<double>(t.parcels_received.load(std::memory_order_relaxed));
    s.parcels_rejected = static_cast<double>(t.parcels_rejected.load(std::memory_order_relaxed));
    s.bytes_sent = static_cast<double>(t.bytes_sent.load(std::memory_order_relaxed));
    s.bytes_received = static_cast<double>(t.bytes_received.load(std::memory_order_relaxed));
    s.messages_sent = static_cast<double>(t.messages_sent.load(std::memory_order_relaxed));
    s.messages_received = static_cast<double>(t.messages_received.load(std::memory_order_relaxed));
    return s;
}

void require_running(const char* what) {
    if (!state().running.load(std::memory_order_acquire))  // acquire: pairs with start()
        throw runtime_state_error(std::string(what) + ": no weft runtime is running");
}

}  // namespace

// --- The component call path's side (agas.hpp) ---------------------------------------

void run_held(held_parcel p, local_ref ref) {
    auto call = std::make_shared<std::pair<held_parcel, local_ref>>(std::move(p), std::move(ref));
    const action_entry* action = action_table::instance().find(call->first.h.action);
    weft::post(task_attributes{task_priority::normal, action->name.data()}, [call, action] {
        held_parcel& held = call->first;
        const id_type target = call_target(held.payload);
        if (held.h.hops != 0) agas_note_location(held.h.origin, target);
        serialization::input_archive in(std::span<const std::byte>(held.payload).subspan(sizeof(id_type)), held.chunks);
        local_ref& r = call->second;
        run_and_answer(
            held.h, action->name, in,
            [action, &r](serialization::input_archive& a, bool& decoded) {
                return action->invoke_on(r.get(), a, &result_archive, decoded);
            },
            [&r](bool) { r.reset(); }, nullptr);
    });
}

void fail_call(const parcel_header& h, std::exception_ptr e) {
    if (h.continuation != 0) {
        answer_exception(h, e);
        return;
    }
    const action_entry* action = action_table::instance().find(h.action);
    posted_action_failed(action != nullptr ? action->name : std::string_view("(unknown)"), e);
}

void forward_parcel(held_parcel&& p, std::uint32_t destination) {
    p.h.destination = destination;
    p.h.source = state().here;
    ++p.h.hops;
    net().send(p.h, p.payload, p.chunks, std::move(p.keep));
}

void send_parcel_header(parcel_header h, const serialization::output_archive& payload,
                        std::shared_ptr<const void> keep) {
    locality_state& s = state();
    if (!s.net || !s.running.load(std::memory_order_acquire))  // acquire: pairs with start()
        throw runtime_state_error("weft: a parcel for locality " + std::to_string(h.destination) +
                                  " with no distributed runtime running");
    s.net->send(h, payload.bytes(), payload.chunks(), std::move(keep));
}

// --- What the action templates use (detail/parcelport.hpp) --------------------------

std::uint32_t here() noexcept { return state().here; }
std::uint32_t localities() noexcept { return state().count; }
continuation_table& continuations() noexcept { return table(); }

serialization::output_archive& scratch_archive(bool clear) {
    thread_local serialization::output_archive archive;
    if (!clear) return archive;
    const std::size_t threshold = state().cfg.zero_copy_threshold;
    if (archive.zero_copy_threshold() != threshold) archive = serialization::output_archive(threshold);
    archive.clear();
    return archive;
}

void check_target(const char* what, std::uint32_t target_locality, bool target_valid) {
    require_running(what);
    if (!target_valid) throw weft::error(std::string(what) + ": the target is the null id");
    if (target_locality >= state().count)
        throw weft::error(std::string(what) + ": there is no locality#" + std::to_string(target_locality) +
                          " in this run of " + std::to_string(state().count) + " localit" +
                          (state().count == 1 ? "y" : "ies"));
}

void send_parcel(std::uint32_t destination, parcel_kind kind, std::uint32_t action, std::uint64_t continuation,
                 const serialization::output_archive& payload, std::shared_ptr<const void> keep) {
    locality_state& s = state();
    if (!s.net || !s.running.load(std::memory_order_acquire))  // acquire: pairs with start()
        throw runtime_state_error("weft: a parcel for locality " + std::to_string(destination) +
                                  " with no distributed runtime running");
    parcel_header h;
    h.kind = kind;
    h.source = s.here;
    h.origin = s.here;
    h.destination = destination;
    h.action = action;
    h.continuation = continuation;
    s.net->send(h, payload.bytes(), payload.chunks(), std::move(keep));
}

void set_lco(const char* what, const id_type& id, const serialization::output_archive& payload,
             std::shared_ptr<const void> keep) {
    check_target(what, id.locality_id(), id.valid());
    if (!id.is_lco()) throw weft::error(std::string(what) + ": " + id.to_string() + " is not a distributed promise's id");
    if (id.locality_id() == state().here) {
        serialization::input_archive in(payload.bytes(), payload.chunks());
        if (!table().complete(id.lsb(), in))
            throw weft::error(std::string(what) + ": the promise " + id.to_string() + " was already set");
        return;
    }
    send_parcel(id.locality_id(), parcel_kind::result, 0, id.lsb(), payload, std::move(keep));
}

void posted_action_failed(std::string_view action, const std::exception_ptr& e) noexcept {
    std::string what = "an exception of unknown type";
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        what = type_name(typeid(x)) + ": " + x.what();
    } catch (...) {
    }
    std::fprintf(stderr, "weft: action %.*s posted to locality %u threw %s; ending the program (nobody waits for it)\n",
                 static_cast<int>(action.size()), action.data(), state().here, what.c_str());
    std::fflush(stderr);
    if (state().net) state().net->abort_all(1);
    std::_Exit(1);
}

transport* running_transport() noexcept {
    // acquire: pairs with start() (the transport is open once running is set).
    return state().running.load(std::memory_order_acquire) ? state().net.get() : nullptr;
}

// --- The runtime's hooks (detail/runtime_hooks.hpp) ----------------------------------

namespace {

/// --weft:keep-large-buffers: glibc gives freed blocks of 128 KiB and more back to the
/// system (munmap, or trimming an arena's top), so the next message, collective or
/// migration of that size page-faults a fresh buffer in; on this project's VMs those
/// faults cost more than the copies (a 1 MiB parcel-path broadcast: 1.2 ms with them,
/// 0.45 ms without: bench/RESULTS.md, "2026-11-28"). Fixed thresholds keep such blocks
/// for reuse (mallopt also turns off glibc's sliding mmap threshold). A threshold set in
/// GLIBC_TUNABLES is the user's choice and stays.
void keep_large_buffers() noexcept {
#if defined(__GLIBC__)
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    const std::string_view t = tunables != nullptr ? tunables : "";
    if (t.find("glibc.malloc.mmap_threshold") == std::string_view::npos)
        (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit)
    if (t.find("glibc.malloc.trim_threshold") == std::string_view::npos) (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace

launch_info launch(const launch_config& cfg) {
    locality_state& s = state();
    s.cfg = cfg;
    s.net = make_mpi_transport({cfg.coalesce_bytes, cfg.max_message});
    s.here = s.net ? s.net->here() : 0;
    s.count = s.net ? s.net->size() : 1;
    if (s.count > 1 && cfg.keep_large_buffers) keep_large_buffers();
    counters::detail::set_network_source(&read_stats);
    return {s.here, s.count, s.net ? s.net->local_size() : 1};
}

void start(unsigned workers, unsigned cores) {
    locality_state& s = state();
    action_table& actions = action_table::instance();
    actions.freeze();
    agas_start();
    lcos_start();
    if (s.net) {
        s.net->check_same_program(actions.checksum(), actions.size());
        s.net->open({s.here, s.count, actions.size()}, &deliver);
        // More workers than cores: this process's workers on the cores it may use (mpirun
        // may have bound it to one), or all the node's localities' on the node's cores.
        const std::uint64_t node_cpus = std::max(1u, std::thread::hardware_concurrency());
        const bool oversubscribed = workers > cores || std::uint64_t{s.net->local_size()} * workers > node_cpus;
        s.net->set_oversubscribed(oversubscribed);
        // A task waiting for an answer polls the transport itself (sched/detail/suspend.hpp,
        // poll_while_waiting), unless another process needs this core.
        ext::set_waiting_tasks_poll(!oversubscribed);
    }
    s.running.store(true, std::memory_order_release);  // release: pairs with require_running
    remote_counters_start();
    if (s.net && s.count > 1) {
        // A message may arrive at any time: one worker always polls (it naps when the
        // node is oversubscribed; see mpi_transport.cpp).
        s.poll_id = ext::add_background_work(&poll, s.net.get(), 64);
        ext::background_work_started(s.poll_id);
        s.polling = true;
    }
}

void quiesce(void (*wait_local)(void*), void* arg, bool spmd) {
    locality_state& s = state();
    if (!s.net || s.count == 1) return;
    if (!spmd) {
        // Locality 0 decides when the program ends: it tells the others, which wait.
        if (s.here == 0) {
            for (std::uint32_t i = 1; i < s.count; ++i) weft::post(weft_main_done_action{}, id_type::locality(i));
        } else {
            std::unique_lock lock(main_done_mutex);
            main_done_cv.wait(lock, [] { return main_done; });
        }
    }
    // Mattern's four-counter method (termination.hpp) over this locality's messages.
    termination_detector detector;
    for (;;) {
        wait_local(arg);
        if (!s.net->idle()) {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
            continue;
        }
        if (detector.wave_done(s.net->wave(s.net->message_counts()))) break;
    }
    const std::lock_guard lock(main_done_mutex);
    main_done = false;  // for the next runtime
}

void stop_progress() {
    locality_state& s = state();
    remote_counters_stop();  // no counter query leaves from here on; the kept sets go
    if (s.net) s.net->close();
    if (s.polling) {
        ext::background_work_finished(s.poll_id);
        ext::remove_background_work(s.poll_id);
        s.polling = false;
    }
    s.running.store(false, std::memory_order_release);  // release: pairs with require_running
    agas_stop();
    // Global termination leaves nobody waiting; a call whose answer can no longer come
    // (a task abandoned its future) must not wait for ever either.
    table().fail_all(std::make_exception_ptr(runtime_state_error("weft: the runtime stopped before the answer came")));
    collectives_stopped();
}

std::vector<counters::counter_value> gather_counters(std::vector<counters::counter_value> mine) {
    locality_state& s = state();
    if (!s.net || s.count == 1) return mine;
    using row = std::tuple<std::string, std::string, double, bool, std::string, double>;
    std::vector<row> rows;
    for (auto& v : mine) rows.emplace_back(v.name, v.unit, v.value, v.available, v.reason, v.interval_s);
    const std::vector<std::byte> bytes = serialization::to_bytes(rows);
    std::vector<counters::counter_value> all;
    for (const auto& part : s.net->gather(bytes)) {
        std::vector<row> theirs;
        try {
            serialization::from_bytes(part, theirs);
        } catch (const serialization_error& e) {
            std::fprintf(stderr, "weft: a locality's counters did not decode: %s\n", e.what());
            continue;
        }
        for (auto& [name, unit, value, available, reason, interval] : theirs)
            all.push_back({std::move(name), std::move(unit), value, available, std::move(reason), interval});
    }
    return all;
}

void shutdown() noexcept {
    locality_state& s = state();
    counters::detail::set_network_source(nullptr);
    s.net.reset();
    s.here = 0;
    s.count = 1;
}

}  // namespace weft::distributed::detail

// --- weft/distributed/locality.hpp ----------------------------------------------------

namespace weft {

using distributed::detail::state;

id_type find_here() {
    distributed::detail::require_running("weft::find_here");
    return id_type::locality(state().here);
}

std::vector<id_type> find_all_localities() {
    distributed::detail::require_running("weft::find_all_localities");
    std::vector<id_type> all;
    for (std::uint32_t i = 0; i < state().count; ++i) all.push_back(id_type::locality(i));
    return all;
}

std::vector<id_type> find_remote_localities() {
    distributed::detail::require_running("weft::find_remote_localities");
    std::vector<id_type> all;
    for (std::uint32_t i = 0; i < state().count; ++i)
        if (i != state().here) all.push_back(id_type::locality(i));
    return all;
}

id_type find_locality(std::uint32_t n) {
    distributed::detail::check_target("weft::find_locality", n, true);
    return id_type::locality(n);
}

void set_lco_value(const id_type& id) {
    distributed::detail::set_lco("weft::set_lco_value", id, distributed::detail::scratch_archive(), nullptr);
}

void set_lco_exception(const id_type& id, std::exception_ptr e) {
    namespace dd = distributed::detail;
    dd::check_target("weft::set_lco_exception", id.locality_id(), id.valid());
    if (!id.is_lco())
        throw weft::error("weft::set_lco_exception: " + id.to_string() + " is not a distributed promise's id");
    if (id.locality_id() == state().here) {
        if (!dd::table().fail(id.lsb(), std::move(e)))
            throw weft::error("weft::set_lco_exception: the promise " + id.to_string() + " was already set");
        return;
    }
    serialization::output_archive& out = dd::scratch_archive();
    dd::encode_exception(out, e, state().here);
    dd::send_parcel(id.locality_id(), dd::parcel_kind::exception, 0, id.lsb(), out, nullptr);
}

std::uint32_t get_locality_id() noexcept { return state().here; }
std::uint32_t get_num_localities() noexcept { return state().count; }

}  // namespace weft
