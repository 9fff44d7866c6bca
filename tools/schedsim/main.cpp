// weft-schedsim: the command line of the HotSLAW work-stealing simulator (see sim.hpp for
// the model). Prints one `weft-schedsim key=value ...` line per run, then a table.
#include "sim.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace {

using namespace weft::schedsim;

constexpr const char* usage_text =
    "usage: weft-schedsim [options]\n"
    "  --machine=SPEC     nodes:N,sockets:N,cores:N (keys outermost first, cores required;\n"
    "                     default sockets:2,cores:4; nodes:32,sockets:2,cores:4 = 256 cores)\n"
    "  --workload=W       fib:N | nqueens:N | uts:T1XS|T3XS|T1|T1L|T2L|T3|T3L | sparselu:NB (default fib:20)\n"
    "  --victims=V        hvs | random | intra-node | intra-socket (default hvs)\n"
    "  --chunks=C         auto | hcs | N | half, or one rule per level innermost first (1,2,half)\n"
    "  --attempts=A       auto, or one count per level innermost first (auto,auto,0)\n"
    "  --queue-bound=N    tasks per worker queue (default 40)\n"
    "  --queue-public=N   tasks in its public part at most (default 20)\n"
    "  --mode=M           bounded | unbounded | depth:D (default bounded)\n"
    "  --release=R        eager (default: release when the public part is empty) | on-demand\n"
    "                     (weft::ext::split_queue: private part full, or a thief found it empty)\n"
    "  --seed=N           random seed (default 1)\n"
    "  --latencies=A,B,C  steal latency in us: intra-socket, inter-socket, inter-node (default 2,3.8,36)\n"
    "  --bandwidth=A,B,C  transfer GB/s per the same classes (default 5,3,1)\n"
    "  --task-us=X        average task time (default: the workload's, seed Table 1)\n"
    "  --spawn-us=X       creation overhead per queued spawn (default: the workload's)\n"
    "  --t1-us=X          the one-worker makespan, if known (default: simulated)\n"
    "  --check            check the queue bounds after every queue operation\n"
    "  --quiet            the key=value line only\n";

[[noreturn]] void bad(std::string_view option, std::string_view value, std::string_view accepted) {
    std::fprintf(stderr, "weft-schedsim: %.*s: '%.*s' is not valid; expected %.*s\n", static_cast<int>(option.size()),
                 option.data(), static_cast<int>(value.size()), value.data(), static_cast<int>(accepted.size()),
                 accepted.data());
    std::exit(2);
}

template <class T>
bool number(std::string_view s, T& out) {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size();
}

bool three(std::string_view s, double (&out)[3], bool positive) {
    for (int i = 0; i < 3; ++i) {
        const auto comma = s.find(',');
        if ((comma == std::string_view::npos) != (i == 2)) return false;
        if (!number(s.substr(0, comma), out[i]) || !(out[i] >= 0) || (positive && out[i] == 0)) return false;
        s.remove_prefix(i == 2 ? s.size() : comma + 1);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    config cfg;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        if (a == "--check") {
            cfg.checked = true;
            continue;
        }
        if (a == "--quiet") {
            quiet = true;
            continue;
        }
        const auto eq = a.find('=');
        if (!a.starts_with("--") || eq == std::string_view::npos) bad("argument", a, "--option=value (see --help)");
        const std::string_view name = a.substr(0, eq), v = a.substr(eq + 1);
        if (name == "--machine") cfg.machine = v;
        else if (name == "--workload") cfg.workload = v;
        else if (name == "--victims") cfg.victims = v;
        else if (name == "--chunks") cfg.chunks = v;
        else if (name == "--attempts") cfg.attempts = v;
        else if (name == "--queue-bound") {
            if (!number(v, cfg.queue_bound) || cfg.queue_bound == 0) bad(name, v, "a count from 1");
        } else if (name == "--queue-public") {
            if (!number(v, cfg.queue_public) || cfg.queue_public == 0) bad(name, v, "a count from 1");
        } else if (name == "--mode") {
            if (v == "bounded") cfg.mode = queue_mode::bounded;
            else if (v == "unbounded") cfg.mode = queue_mode::unbounded;
            else if (v.starts_with("depth:") && number(v.substr(6), cfg.depth_cutoff)) cfg.mode = queue_mode::depth;
            else bad(name, v, "bounded, unbounded or depth:D (D a tree depth)");
        } else if (name == "--release") {
            if (v == "eager") cfg.release_on_demand = false;
            else if (v == "on-demand") cfg.release_on_demand = true;
            else bad(name, v, "eager or on-demand");
        } else if (name == "--seed") {
            if (!number(v, cfg.seed)) bad(name, v, "an unsigned 64-bit number");
        } else if (name == "--latencies") {
            if (!three(v, cfg.latency_us, true)) bad(name, v, "three latencies in us above 0, e.g. 2,3.8,36");
        } else if (name == "--bandwidth") {
            if (!three(v, cfg.bandwidth_gbs, true)) bad(name, v, "three bandwidths in GB/s above 0, e.g. 5,3,1");
        } else if (name == "--task-us") {
            if (!number(v, cfg.task_us) || cfg.task_us < 0) bad(name, v, "a time in us, 0 or more");
        } else if (name == "--spawn-us") {
            if (!number(v, cfg.spawn_us) || cfg.spawn_us < 0) bad(name, v, "a time in us, 0 or more");
        } else if (name == "--t1-us") {
            if (!number(v, cfg.t1_us) || !(cfg.t1_us > 0)) bad(name, v, "a time in us above 0");
        } else {
            bad("option", name, "one of those --help lists");
        }
    }
    try {
        const result r = simulate(cfg);
        std::printf("%s\n", result_line(cfg, r).c_str());
        if (!quiet) std::printf("%s", result_table(cfg, r).c_str());
        return 0;
    } catch (const bad_option_error& e) {
        std::fprintf(stderr, "%s\n", e.message.c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "weft-schedsim: %s\n", e.what());
        return 1;
    }
}
