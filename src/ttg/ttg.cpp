// The template task graph's per-locality state (include/weft/ttg/): the registry of
// template tasks by number, work in progress and message counts, exceptions of task
// bodies, fence() (F. Mattern's four counters, "Algorithms for distributed termination
// detection", Distributed Computing 2(3), 1987, §4, as distributed/termination.hpp),
// initialize/finalize, the graph check and the Dot printer.
#include <weft/distributed.hpp>
#include <weft/distributed/termination.hpp>
#include <weft/lcos/condition_variable.hpp>
#include <weft/lcos/mutex.hpp>
#include <weft/runtime/detail/spmd.hpp>
#include <weft/runtime/runtime.hpp>
#include <weft/sched/this_task.hpp>
#include <weft/ttg.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace weft::ttg::detail {

hold_ref& this_thread_hold() noexcept {
    thread_local hold_ref h;
    return h;
}

namespace {

struct state {
    /// Template task instances scheduled or running here, and messages waiting for
    /// their template task to be made.
    std::atomic<std::int64_t> work{0};
    std::atomic<std::uint64_t> sent{0}, received{0}, ran{0};
    /// fence() calls begun here; a wave for fence n waits until this reaches n.
    std::atomic<std::uint64_t> fences{0};
    weft::mutex idle_mutex;
    weft::condition_variable idle;  ///< work reached 0, or a fence began

    std::mutex errors_mutex;
    std::vector<std::exception_ptr> errors;

    std::mutex registry_mutex;
    std::vector<tt_base*> tts;  ///< by number; null once destroyed
    std::unordered_map<std::uint32_t, std::vector<message_fn>> waiting;

    std::mutex names_mutex;
    std::deque<std::string> names;

    /// Whether every locality builds the graph (and calls fence): one locality, a runtime
    /// started by initialize(), or --weft:spmd.
    std::atomic<bool> collective{false};
    std::unique_ptr<weft::runtime> own_runtime;
};

state& st() {
    static state* s = new state;  // used by tasks until the process ends: never destroyed
    return *s;
}

void notify_idle() {
    state& s = st();
    std::lock_guard lock(s.idle_mutex);
    s.idle.notify_all();
}

bool collective_here() {
    return weft::get_num_localities() <= 1 || st().collective.load(std::memory_order_relaxed) ||  // relaxed: set before the graph is built
           weft::detail::runtime_spmd();
}

/// Waits until this locality has begun fence `epoch` (or builds no graph) and no work is
/// in progress; returns its message counts.
std::pair<std::uint64_t, std::uint64_t> wave(std::uint64_t epoch) {
    state& s = st();
    std::unique_lock lock(s.idle_mutex);
    s.idle.wait(lock, [&s, epoch] {
        return (s.fences.load() >= epoch || !collective_here()) && s.work.load() == 0;
    });
    return {s.sent.load(), s.received.load()};
}

}  // namespace

WEFT_PLAIN_ACTION(wave, ttg_fence_wave_action);

std::uint32_t register_tt(tt_base* tt) {
    if (weft::get_num_localities() > 1 && !collective_here())
        throw error("weft::ttg: template task '" + tt->name() + "': a template task graph on " +
                    std::to_string(weft::get_num_localities()) +
                    " localities needs every locality to build it: run with --weft:spmd, or call "
                    "weft::ttg::initialize(argc, argv) in main instead of weft::run");
    state& s = st();
    std::lock_guard lock(s.registry_mutex);
    s.tts.push_back(tt);
    return static_cast<std::uint32_t>(s.tts.size() - 1);
}

void make_executable(tt_base* tt) {
    state& s = st();
    std::vector<message_fn> ready;
    {
        std::lock_guard lock(s.registry_mutex);
        if (tt->executable) return;
        tt->executable = true;
        if (auto it = s.waiting.find(tt->id()); it != s.waiting.end()) {
            ready = std::move(it->second);
            s.waiting.erase(it);
        }
    }
    // Messages from other localities that came before: delivered now, each as a task.
    for (auto& fn : ready) {
        weft::post([fn = std::move(fn), tt]() mutable {
            try {
                fn(*tt);
            } catch (...) {
                task_failed(std::current_exception());
            }
            work_finished();
        });
    }
}

void make_all_executable() {
    std::vector<tt_base*> all;
    {
        std::lock_guard lock(st().registry_mutex);
        for (tt_base* t : st().tts)
            if (t != nullptr && !t->executable) all.push_back(t);
    }
    for (tt_base* t : all) make_executable(t);
}

void unregister_tt(std::uint32_t id) noexcept {
    state& s = st();
    std::lock_guard lock(s.registry_mutex);
    if (id < s.tts.size()) s.tts[id] = nullptr;
}

void with_tt(std::uint32_t id, message_fn fn) {
    state& s = st();
    tt_base* t = nullptr;
    {
        std::lock_guard lock(s.registry_mutex);
        if (id >= s.tts.size() || (s.tts[id] != nullptr && !s.tts[id]->executable)) {
            // Not made here yet, or not executable yet (its keymap, reducers and stream
            // sizes may not be set): it waits, counted as work (fence waits for it).
            work_started();
            s.waiting[id].push_back(std::move(fn));
            return;
        }
        t = s.tts[id];
    }
    if (t == nullptr)
        throw error("weft::ttg: a message for template task number " + std::to_string(id) +
                    ", which was destroyed on locality " + std::to_string(weft::get_locality_id()));
    fn(*t);
}

tt_base& wait_for_tt(std::uint32_t id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
        {
            std::lock_guard lock(st().registry_mutex);
            if (id < st().tts.size()) {
                tt_base* t = st().tts[id];
                if (t == nullptr)
                    throw error("weft::ttg: a pull from template task number " + std::to_string(id) +
                                ", which was destroyed on locality " + std::to_string(weft::get_locality_id()));
                if (t->executable) return *t;
            }
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw error("weft::ttg: a pull from template task number " + std::to_string(id) + ", which locality " +
                        std::to_string(weft::get_locality_id()) +
                        " has not made (or made executable) within 60 s: every locality must build the same graph");
        weft::this_task::yield();
    }
}

void deliver_message(std::uint32_t id, message_fn fn) noexcept {
    try {
        with_tt(id, std::move(fn));
    } catch (...) {
        task_failed(std::current_exception());
    }
    message_received();
}

void work_started() noexcept {
    st().work.fetch_add(1, std::memory_order_relaxed);  // relaxed: the post that follows publishes the task
}

void work_finished() noexcept {
    state& s = st();
    s.ran.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    if (s.work.fetch_sub(1, std::memory_order_acq_rel) == 1) notify_idle();  // acq_rel: the task's effects before fence's return
}

void message_sent() noexcept {
    st().sent.fetch_add(1, std::memory_order_relaxed);  // relaxed: read in waves after the work count, under its lock
}

void message_received() noexcept {
    st().received.fetch_add(1, std::memory_order_release);  // release: after the message's effects (its task counted)
}

void task_failed(std::exception_ptr e) noexcept {
    state& s = st();
    std::lock_guard lock(s.errors_mutex);
    try {
        s.errors.push_back(std::move(e));
    } catch (...) {  // out of memory: that exception is lost, the program goes on
    }
}

const char* interned(const std::string& name) {
    state& s = st();
    std::lock_guard lock(s.names_mutex);
    for (const std::string& n : s.names)
        if (n == name) return n.c_str();
    return s.names.emplace_back(name).c_str();
}

/// The template tasks reachable from `roots` through edges, either way: the roots first,
/// in their order, then the others breadth first.
std::vector<const tt_base*> reachable(const std::vector<const tt_base*>& roots) {
    std::vector<const tt_base*> out;
    std::set<const tt_base*> seen;
    auto add = [&out, &seen](const tt_base* t) {
        if (t != nullptr && seen.insert(t).second) out.push_back(t);
    };
    for (const tt_base* r : roots) add(r);
    for (std::size_t next = 0; next < out.size(); ++next) {
        const tt_base* t = out[next];
        auto visit = [&add](const edge_base* e) {
            if (e == nullptr) return;
            for (const terminal_ref& r : e->producers) add(r.owner);
            for (const terminal_ref& r : e->consumers) add(r.owner);
        };
        for (std::size_t i = 0; i < t->num_inputs(); ++i) visit(t->input_edge(i));
        for (std::size_t i = 0; i < t->num_outputs(); ++i) visit(t->output_edge(i));
    }
    return out;
}

std::string check_graph(const std::vector<const tt_base*>& tts, const std::vector<const tt_base*>& roots) {
    std::string problems;
    auto add = [&problems](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
    for (std::size_t n = 0; n < tts.size(); ++n) {
        const tt_base* t = tts[n];
        for (std::size_t i = 0; i < t->num_inputs(); ++i) {
            const edge_base* e = t->input_edge(i);
            // A root's inputs may come from invoke(key, values...) alone.
            if (e != nullptr && (e->pull || !e->producers.empty() || std::find(roots.begin(), roots.end(), t) != roots.end()))
                continue;
            add("input terminal " + std::to_string(i) + " ('" + t->input_name(i) + "') of template task '" + t->name() +
                "' is joined to edge '" + (e ? e->name : std::string("?")) + "', on which no output terminal sends");
        }
        for (std::size_t i = 0; i < t->num_outputs(); ++i) {
            const edge_base* e = t->output_edge(i);
            if (e != nullptr && !e->consumers.empty()) continue;
            add("output terminal " + std::to_string(i) + " ('" + t->output_name(i) + "') of template task '" +
                t->name() + "' sends on edge '" + (e ? e->name : std::string("?")) + "', which reaches no input terminal");
        }
    }
    return problems;
}

namespace {
std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + '"';
}
std::string node_id(const tt_base* t) { return quoted(t->name() + "#" + std::to_string(t->id())); }
}  // namespace

void print_dot(std::ostream& os, const std::vector<const tt_base*>& tts) {
    os << "digraph ttg {\n";
    for (const tt_base* t : tts) {
        std::string label = t->name() + "\\nin:";
        for (std::size_t i = 0; i < t->num_inputs(); ++i) label += (i ? ", " : " ") + t->input_name(i);
        label += "\\nout:";
        for (std::size_t i = 0; i < t->num_outputs(); ++i) label += (i ? ", " : " ") + t->output_name(i);
        os << "  " << node_id(t) << " [shape=box,label=\"" << label << "\"];\n";
    }
    for (const tt_base* t : tts) {
        for (std::size_t i = 0; i < t->num_outputs(); ++i) {
            const edge_base* e = t->output_edge(i);
            if (e == nullptr) continue;
            for (const terminal_ref& r : e->consumers)
                os << "  " << node_id(t) << " -> " << node_id(r.owner) << " [label="
                   << quoted(e->name + ": " + t->output_name(i) + " -> " + r.owner->input_name(r.index)) << "];\n";
        }
        for (std::size_t i = 0; i < t->num_inputs(); ++i) {
            const edge_base* e = t->input_edge(i);
            if (e != nullptr && e->pull)
                os << "  " << quoted("pull:" + e->name) << " [shape=cylinder];\n  " << quoted("pull:" + e->name)
                   << " -> " << node_id(t) << " [style=dashed,label=" << quoted(t->input_name(i)) << "];\n";
        }
    }
    os << "}\n";
}

}  // namespace weft::ttg::detail

namespace weft::ttg {

void initialize(int& argc, char** argv) {
    detail::state& s = detail::st();
    if (s.own_runtime) throw error("weft::ttg::initialize: called twice without finalize()");
    if (weft::get_num_localities() > 0 && weft::detail::runtime_spmd()) {  // inside an SPMD weft::run
        s.collective.store(true, std::memory_order_relaxed);  // relaxed: before the graph is built
        return;
    }
    try {
        s.own_runtime = std::make_unique<weft::runtime>(argc, argv);
    } catch (const runtime_state_error&) {
        // Inside weft::run: fine on one locality; on several only with --weft:spmd.
        if (weft::get_num_localities() > 1)
            throw error("weft::ttg::initialize: inside weft::run on " + std::to_string(weft::get_num_localities()) +
                        " localities every locality must build the graph: run with --weft:spmd, or call "
                        "weft::ttg::initialize(argc, argv) from main instead of weft::run");
        return;
    }
    s.collective.store(true, std::memory_order_relaxed);  // relaxed: before the graph is built
}

void finalize() {
    detail::state& s = detail::st();
    std::exception_ptr failed;
    try {
        fence();
    } catch (...) {
        failed = std::current_exception();
    }
    if (s.own_runtime) {
        s.own_runtime->stop();
        s.own_runtime.reset();
        s.collective.store(false, std::memory_order_relaxed);  // relaxed: no graph runs any more
    }
    if (failed) std::rethrow_exception(failed);
}

void execute() { detail::make_all_executable(); }

std::uint64_t tasks_run() noexcept { return detail::st().ran.load(std::memory_order_relaxed); }

void fence() {
    detail::make_all_executable();
    detail::state& s = detail::st();
    const std::uint64_t epoch = s.fences.fetch_add(1) + 1;
    {
        std::lock_guard lock(s.idle_mutex);
        s.idle.notify_all();  // waves waiting for this fence to begin
    }
    const std::uint32_t n = weft::get_num_localities();
    if (n <= 1) {
        (void)detail::wave(epoch);
    } else {
        distributed::detail::termination_detector detector;
        for (;;) {
            std::vector<future<std::pair<std::uint64_t, std::uint64_t>>> waves;
            waves.reserve(n);
            for (std::uint32_t l = 0; l < n; ++l)
                waves.push_back(weft::async(detail::ttg_fence_wave_action{}, weft::find_locality(l), epoch));
            distributed::detail::parcel_counts total;
            for (auto& w : waves) {
                const auto [sent, received] = w.get();
                total.sent += sent;
                total.received += received;
            }
            if (detector.wave_done(total)) break;
        }
        // No locality leaves this fence before every locality has seen the graph quiesce:
        // one that left early and sent the next phase's messages would hold up the
        // others' waves (its work, or theirs waiting for graphs not yet built) for good.
        weft::collectives::barrier().get();
    }
    std::vector<std::exception_ptr> errors;
    {
        std::lock_guard lock(s.errors_mutex);
        errors.swap(s.errors);
    }
    if (errors.size() == 1) std::rethrow_exception(errors.front());
    if (!errors.empty()) {
        const std::string what = "weft::ttg::fence: " + std::to_string(errors.size()) + " template task bodies threw";
        throw exception_list(std::move(errors), what);
    }
}

}  // namespace weft::ttg
