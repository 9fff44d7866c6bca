// weft::runtime (see include/weft/runtime/runtime.hpp).
#include <weft/adapt/policy.hpp>
#include <weft/config/errors.hpp>
#include <weft/ext/hierarchy.hpp>
#include <weft/platform/topology.hpp>
#include <weft/runtime/runtime.hpp>
#include <weft/runtime/detail/spmd.hpp>

#include <weft/counters/detail/service.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/distributed/detail/runtime_hooks.hpp>

#include <weft/counters/counters.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace weft {

runtime::runtime() {
    int argc = 0;
    char* argv[] = {nullptr};
    start_program(argc, argv);
}

runtime::runtime(int& argc, char** argv) { start_program(argc, argv); }

runtime::runtime(const runtime_config& cfg) : cfg_(cfg) {
    validate(cfg_);
    start();
    if (cfg_.list_counters) counters::print_list(std::cout);
}

runtime::~runtime() {
    try {
        stop();
    } catch (const error&) {
        // A write error: printed on stderr when it happened; a destructor cannot report more.
    }
}

// The program-level constructors' one path: an option error (parsing, validation, or a
// value found bad only at start, such as a counter name or an unwritable file) exits with
// code 2, a runtime that cannot start (a worker thread) with code 1.
void runtime::start_program(int& argc, char** argv) {
    try {
        cfg_ = parse_runtime_options(argc, argv);
        validate(cfg_);
        if (cfg_.help) {
            print_runtime_help(std::cout);
            std::cout.flush();
            std::exit(0);
        }
        start();
    } catch (const bad_option& e) {
        std::fprintf(stderr, "%s\n", e.what());
        std::exit(2);
    } catch (const runtime_state_error&) {
        throw;  // a second runtime: the program's mistake, not the machine's
    } catch (const error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        std::exit(1);
    }
    if (cfg_.list_counters) {
        counters::print_list(std::cout);
        std::cout.flush();
        try {
            stop();
        } catch (const error&) {
            std::exit(1);  // printed when it happened
        }
        std::exit(0);
    }
}

namespace {
// The running runtime's --weft:spmd (weft::detail::runtime_spmd).
std::atomic<bool> spmd_running{false};
}  // namespace

bool detail::runtime_spmd() noexcept {
    return spmd_running.load(std::memory_order_relaxed);  // relaxed: set before any task runs, read by tasks
}

void runtime::start() {
    spmd_running.store(cfg_.spmd, std::memory_order_relaxed);  // relaxed: see runtime_spmd
    const topology& topo = cfg_.topology ? *cfg_.topology : topology::machine();
    // Under mpirun this process is one locality of several (MPI starts here).
    const distributed::detail::launch_info here =
        distributed::detail::launch(
            {cfg_.parcel_coalesce, cfg_.parcel_max_message, cfg_.zero_copy_threshold, cfg_.keep_large_buffers});
    detail::scheduler_config sc;
    sc.threads = cfg_.threads != 0 ? cfg_.threads : topo.num_cores();
    // Several localities on this node share its cores.
    if (cfg_.threads == 0 && here.local_count > 1) sc.threads = std::max(1u, topo.num_cores() / here.local_count);
    if (cfg_.threads == 0 && !cfg_.synthetic_topology.empty())
        sc.threads = ext::hierarchy::machine_workers(cfg_.synthetic_topology);
    if (cfg_.scheduler == "single" && cfg_.threads == 0) sc.threads = 1;
    sc.policy = cfg_.scheduler;
    // A topology given in code describes another machine (or none): it cannot bind.
    // Several localities on one node would bind their workers to the same cores: they
    // are left where mpirun placed the process.
    sc.bind = cfg_.bind && (!cfg_.topology || topo.can_bind()) && here.local_count == 1;
    sc.topo = cfg_.topology;
    sc.stack_size = cfg_.stack_size != 0 ? cfg_.stack_size : detail::default_stack_size;
    sc.stack_trim = std::chrono::milliseconds(cfg_.stack_trim_ms);
    sc.deadlock_timeout = std::chrono::milliseconds(cfg_.deadlock_timeout_ms);
    using action = detail::scheduler_config::deadlock_action;
    sc.on_deadlock = cfg_.on_deadlock == "exit"   ? action::exit
                     : cfg_.on_deadlock == "wait" ? action::wait
                                                  : action::exit_if_certain;  // "auto", checked by validate()
    sc.timing = cfg_.counter_timing;
    sc.hand_off = cfg_.hand_off;
    sc.tracing = !cfg_.trace_file.empty();
    sc.policy_options.values = {{"xqueue-domains", cfg_.xqueue_domains},
                                {"hierarchy", cfg_.hierarchy},
                                {"topology", cfg_.synthetic_topology},
                                {"steal-attempts", cfg_.steal_attempts},
                                {"steal-chunk", cfg_.steal_chunk},
                                {"queue-bound", std::to_string(cfg_.queue_bound)},
                                {"queue-public", std::to_string(cfg_.queue_public)}};
    sched_ = detail::scheduler_handle(sc);  // may throw bad_option: a policy's worker bound
    cfg_.threads = sched_.num_workers();
    cfg_.stack_size = sched_.stack_size();
    if (cfg_.print_topology) {
        topo.print(std::cout);
        std::cout << "weft: " << cfg_.threads << " worker(s), scheduler " << cfg_.scheduler << ", binding "
                  << (cfg_.bind ? "compact" : "none") << ", stack " << cfg_.stack_size << " bytes\n";
        for (unsigned i = 0; i < cfg_.threads; ++i) {
            const unsigned core = i % topo.num_cores();
            std::cout << "  worker " << i << " -> core " << core << " (NUMA node " << topo.cores()[core].numa_node
                      << ")\n";
        }
        std::cout.flush();
    }
    try {
        sched_.start();  // throws weft::error if a thread cannot start, having stopped the others
    } catch (...) {
        counters::detail::forget_hardware(sched_.get());
        sched_.reset();
        distributed::detail::shutdown();
        throw;
    }
    counters::detail::set_locality(here.here, here.count);
    counters::detail::service_config cc;
    cc.print = cfg_.print_counters;
    cc.interval_ms = cfg_.print_counter_interval_ms;
    cc.fmt = cfg_.print_counter_format == "csv"    ? counters::format::csv
             : cfg_.print_counter_format == "json" ? counters::format::json
                                                   : counters::format::text;
    cc.destination = cfg_.print_counter_destination;
    cc.reset_each = cfg_.reset_counters;
    cc.trace_file = cfg_.trace_file;
    if (here.count > 1) {
        // Locality 0 prints every locality's counters at exit; each locality writes its
        // own trace, FILE.json becoming FILE.locality-N.json beside locality 0's.
        cc.write = here.here == 0;
        cc.gather_at_exit = &distributed::detail::gather_counters;
        if (here.here != 0 && !cc.trace_file.empty()) {
            const std::string suffix = ".locality-" + std::to_string(here.here);
            const std::size_t dot = cc.trace_file.rfind('.');
            const std::size_t slash = cc.trace_file.rfind('/');
            if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) cc.trace_file += suffix;
            else cc.trace_file.insert(dot, suffix);
        }
    }
    try {
        counters::detail::start_service(cc);
        adapt::detail::start_engine({cfg_.adapt_log, cfg_.adapt_history});
    } catch (...) {
        adapt::detail::stop_engine();
        counters::detail::stop_service();
        distributed::detail::stop_progress();
        sched_.stop();
        counters::detail::forget_hardware(sched_.get());
        sched_.reset();
        distributed::detail::shutdown();
        throw;
    }
    // Parcels flow from here on, after the counters took their starting point.
    distributed::detail::start(cfg_.threads, topo.num_cores());
}

void runtime::wait() {
    if (sched_) sched_.wait_for_quiescence();
}

void runtime::stop() {
    if (!sched_) return;
    sched_.close_entry();  // threads outside weft can no longer add tasks: the wait below ends
    // Several localities: until no task runs and no parcel travels anywhere.
    distributed::detail::quiesce([](void* s) { static_cast<detail::scheduler_handle*>(s)->wait_for_quiescence(); },
                                 &sched_, cfg_.spmd);
    sched_.wait_for_quiescence();
    adapt::detail::stop_engine();  // no policy runs once the counters stop
    distributed::detail::stop_progress();
    counters::detail::stop_service();  // the last print ("at exit") sees the final counts
    sched_.stop();
    counters::detail::write_trace(*sched_.get());
    counters::detail::forget_hardware(sched_.get());
    sched_.reset();
    distributed::detail::shutdown();
    spmd_running.store(false, std::memory_order_relaxed);  // relaxed: see runtime_spmd
    // Counters or a trace that could not be written: already on stderr; stopped all the same.
    if (std::string why = counters::detail::take_write_error(); !why.empty()) throw error(why);
}

unsigned runtime::num_workers() const noexcept { return cfg_.threads; }

bool runtime::runs_main() const noexcept { return cfg_.spmd || distributed::detail::here() == 0; }

std::string_view runtime::scheduler_name() const noexcept { return cfg_.scheduler; }

std::vector<std::uint64_t> runtime::tasks_per_worker() const {
    return sched_ ? sched_.finished_per_worker() : std::vector<std::uint64_t>{};
}

}  // namespace weft
