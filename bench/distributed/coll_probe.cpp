// Issue #24's collectives probe: each weft::collectives operation beside the same raw
// MPI collective (blocking: MPI_Allreduce, MPI_Bcast, ...) on a duplicate of
// MPI_COMM_WORLD, in the same run, at 8 B and 1 MiB where that means something.
//
// Every locality runs it (--weft:spmd is implied: the program asks for it). For each
// case: a warm-up of both, then --batches batches, each of `reps` calls of the raw MPI
// collective and then `reps` of weft's (call, then get(): one collective in flight at a
// time), every rank starting a batch after a barrier; a batch's time is the slowest
// rank's mean per call (an all-reduce of max, outside the timing). Those two, and the
// warm-up's agreement, are non-blocking MPI calls waited for with this_task::yield: a
// blocking one would hold the worker and with it weft's progress (a broadcast root
// that does not wait for its parcels to leave would never send the last one). reps is
// chosen on rank 0 from the warm-up (calls doubling from 1 until at least 16 and a quarter
// of --batch-ms) so that a batch lasts about --batch-ms. Lines:
//   coll op=<name> size=<bytes> path=<mpi|parcel> ranks=<n> mpi_us=<median> mpi_nb_us=<median>
//        weft_us=<median> ratio=<weft/mpi of the medians> min_ratio=<min/min>
//        nb_ratio=<weft/mpi_nb> reps=<r> batches=<b>
// mpi_nb is the non-blocking MPI collective weft posts, called and then MPI_Test'ed
// until done (what Open MPI's non-blocking collectives cost by themselves).
// Results are checked after timing (a wrong one exits 1).
//
// Run: mpirun -np 2 bench_distributed_coll_probe --weft:threads=1 (as root with the
// OMPI_ALLOW_RUN_AS_ROOT variables; -np 4 on 2 cores also needs
// OMPI_MCA_rmaps_base_oversubscribe=1).
#include "bench_common.hpp"

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace wc = weft::collectives;
using clock_type = std::chrono::steady_clock;

struct probe_options {
    unsigned batches = 7;
    double batch_ms = 20;
    unsigned max_reps = 2000;
    std::string only;  ///< run only the operations whose name contains this
};

[[noreturn]] void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: mpirun -np N %s [--batches=7] [--batch-ms=20] [--max-reps=2000] [--only=NAME] [--weft:...]\n",
                 program);
    std::exit(status);
}

probe_options parse(int argc, char** argv) {
    probe_options o;
    weft::bench::parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--batches") return parse_number(v, o.batches) && o.batches >= 1;
        if (name == "--max-reps") return parse_number(v, o.max_reps) && o.max_reps >= 1;
        if (name == "--batch-ms") {
            unsigned ms = 0;
            if (!parse_number(v, ms) || ms == 0) return false;
            o.batch_ms = ms;
            return true;
        }
        if (name == "--only") {
            o.only = std::string(v);
            return true;
        }
        return false;
    });
    return o;
}

struct probe_case {
    const char* op;
    std::size_t size;   ///< bytes per member
    const char* path;   ///< weft's: mpi or parcel
    std::function<void()> mpi, weft;
    std::function<bool()> check;  ///< weft's last result is right
    std::function<void(MPI_Request*)> nb = {};  ///< mpi as a non-blocking MPI call
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Waits for `r` without blocking the worker: weft's parcels must keep moving (a root
/// whose broadcast parcel still sits in its outbox would otherwise never send it).
void wait_yielding(MPI_Request& r) {
    for (int done = 0; MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0;) weft::this_task::yield();
}

/// Seconds per call of `f` over `reps` calls, the slowest rank's.
double batch(MPI_Comm ref, unsigned reps, const std::function<void()>& f) {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Ibarrier(ref, &r);
    wait_yielding(r);
    const auto t0 = clock_type::now();
    for (unsigned i = 0; i < reps; ++i) f();
    double mine = std::chrono::duration<double>(clock_type::now() - t0).count() / reps, slowest = 0;
    MPI_Iallreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, ref, &r);
    wait_yielding(r);
    return slowest;
}

int run(const probe_options& o) {
    MPI_Comm ref = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &ref);
    const std::uint32_t n = weft::get_num_localities(), me = weft::get_locality_id();
    constexpr std::size_t big = std::size_t{1} << 20;
    constexpr std::size_t big_doubles = big / sizeof(double);

    // Buffers for both sides (the raw MPI ones are reused; weft's move in and out).
    double x = 1.0 + me, xr = 0;
    std::vector<double> vin(big_doubles, 1.0 + me), vout(big_doubles);
    std::vector<double> all(n), wall;
    std::vector<double> parts(n, 2.0), part_out(1);
    std::vector<double> a2a(n, 3.0 + me), a2a_out(n);
    std::vector<char> bytes(big, static_cast<char>('a')), bytes_out(big);
    double wx = 0;
    std::vector<double> wv;
    std::vector<char> wbytes;
    const double sum = n * (n + 1) / 2.0;
    const auto plus_lambda = [](double a, double b) { return a + b; };

    std::vector<probe_case> cases;
    cases.push_back({"all_reduce", 8, "mpi", [&] { MPI_Allreduce(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, ref); },
                     [&] { wx = wc::all_reduce(x, std::plus<>{}).get(); }, [&] { return wx == sum; }});
    cases.push_back({"all_reduce", big, "mpi",
                     [&] { MPI_Allreduce(vin.data(), vout.data(), static_cast<int>(big_doubles), MPI_DOUBLE, MPI_SUM, ref); },
                     [&] { wv = wc::all_reduce(vin, std::plus<>{}).get(); },
                     [&] { return wv.size() == big_doubles && wv.front() == sum && wv.back() == sum; }});
    cases.push_back({"all_reduce(lambda)", 8, "parcel", [&] { MPI_Allreduce(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, ref); },
                     [&] { wx = wc::all_reduce(x, plus_lambda).get(); }, [&] { return wx == sum; }});
    cases.push_back({"reduce", 8, "mpi", [&] { MPI_Reduce(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, 0, ref); },
                     [&] { wx = wc::reduce(x, std::plus<>{}, 0).get(); }, [&] { return wx == (me == 0 ? sum : x); }});
    cases.push_back({"reduce", big, "mpi",
                     [&] { MPI_Reduce(vin.data(), vout.data(), static_cast<int>(big_doubles), MPI_DOUBLE, MPI_SUM, 0, ref); },
                     [&] { wv = wc::reduce(vin, std::plus<>{}, 0).get(); },
                     [&] { return wv.size() == big_doubles && wv.back() == (me == 0 ? sum : 1.0 + me); }});
    cases.push_back({"broadcast", 8, "mpi", [&] { MPI_Bcast(&xr, 1, MPI_DOUBLE, 0, ref); },
                     [&] { wx = wc::broadcast(x, 0).get(); }, [&] { return wx == 1.0; }});
    cases.push_back({"broadcast(vector<char>)", big, "parcel", [&] { MPI_Bcast(bytes_out.data(), static_cast<int>(big), MPI_CHAR, 0, ref); },
                     [&] { wbytes = wc::broadcast(me == 0 ? bytes : std::vector<char>{}, 0).get(); },
                     [&] { return wbytes.size() == big && wbytes.back() == 'a'; }});
    cases.push_back({"all_gather", 8, "mpi", [&] { MPI_Allgather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, ref); },
                     [&] { wall = wc::all_gather(x).get(); }, [&] { return wall.size() == n && wall.back() == n; }});
    cases.push_back({"gather", 8, "mpi", [&] { MPI_Gather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, ref); },
                     [&] { wall = wc::gather(x, 0).get(); }, [&] { return wall.size() == (me == 0 ? n : 0u); }});
    cases.push_back({"scatter", 8, "mpi",
                     [&] { MPI_Scatter(parts.data(), 1, MPI_DOUBLE, part_out.data(), 1, MPI_DOUBLE, 0, ref); },
                     [&] { wx = wc::scatter(me == 0 ? parts : std::vector<double>{}, 0).get(); }, [&] { return wx == 2.0; }});
    cases.push_back({"all_to_all", 8, "mpi",
                     [&] { MPI_Alltoall(a2a.data(), 1, MPI_DOUBLE, a2a_out.data(), 1, MPI_DOUBLE, ref); },
                     [&] { wall = wc::all_to_all(a2a).get(); }, [&] { return wall.size() == n && wall.back() == 2.0 + n; }});
    cases.push_back({"exclusive_scan", 8, "mpi", [&] { MPI_Exscan(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, ref); },
                     [&] { wx = wc::exclusive_scan(x, std::plus<>{}).get(); },
                     [&] { return wx == me * (me + 1) / 2.0; }});
    cases.push_back({"barrier", 0, "mpi", [&] { MPI_Barrier(ref); }, [&] { wc::barrier().get(); }, [] { return true; }});

    // The non-blocking MPI calls weft posts (MPI_Test until done, nothing else): what
    // Open MPI's non-blocking collectives cost by themselves.
    const int bd = static_cast<int>(big_doubles);
    std::vector<std::function<void(MPI_Request*)>> nbs = {
        [&](MPI_Request* r) { MPI_Iallreduce(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, ref, r); },
        [&](MPI_Request* r) { MPI_Iallreduce(vin.data(), vout.data(), bd, MPI_DOUBLE, MPI_SUM, ref, r); },
        [&](MPI_Request* r) { MPI_Iallreduce(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, ref, r); },
        [&](MPI_Request* r) { MPI_Ireduce(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, 0, ref, r); },
        [&](MPI_Request* r) { MPI_Ireduce(vin.data(), vout.data(), bd, MPI_DOUBLE, MPI_SUM, 0, ref, r); },
        [&](MPI_Request* r) { MPI_Ibcast(&xr, 1, MPI_DOUBLE, 0, ref, r); },
        [&](MPI_Request* r) { MPI_Ibcast(bytes_out.data(), static_cast<int>(big), MPI_CHAR, 0, ref, r); },
        [&](MPI_Request* r) { MPI_Iallgather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, ref, r); },
        [&](MPI_Request* r) { MPI_Igather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, ref, r); },
        [&](MPI_Request* r) { MPI_Iscatter(parts.data(), 1, MPI_DOUBLE, part_out.data(), 1, MPI_DOUBLE, 0, ref, r); },
        [&](MPI_Request* r) { MPI_Ialltoall(a2a.data(), 1, MPI_DOUBLE, a2a_out.data(), 1, MPI_DOUBLE, ref, r); },
        [&](MPI_Request* r) { MPI_Iexscan(&x, &xr, 1, MPI_DOUBLE, MPI_SUM, ref, r); },
        [&](MPI_Request* r) { MPI_Ibarrier(ref, r); },
    };
    for (std::size_t i = 0; i < cases.size(); ++i) cases[i].nb = nbs[i];

    int wrong = 0;
    for (const probe_case& c : cases) {
        if (!o.only.empty() && std::string_view(c.op).find(o.only) == std::string_view::npos) continue;
        // Warm-up and reps (rank 0 decides, everyone follows).
        unsigned reps = 1;
        for (;;) {
            const double t = std::max(batch(ref, reps, c.mpi), batch(ref, reps, c.weft));
            // At least 16 calls of each (the first ones make connections and touch pages).
            int more = (reps < 16 || t * reps < o.batch_ms * 1e-3 / 4) && reps < o.max_reps ? 1 : 0;
            MPI_Request r = MPI_REQUEST_NULL;
            MPI_Ibcast(&more, 1, MPI_INT, 0, ref, &r);
            wait_yielding(r);
            if (!more) {
                double want = o.batch_ms * 1e-3 / std::max(t, 1e-9);
                unsigned reps_wanted = static_cast<unsigned>(std::clamp(want, 2.0, static_cast<double>(o.max_reps)));
                MPI_Ibcast(&reps_wanted, 1, MPI_UNSIGNED, 0, ref, &r);
                wait_yielding(r);
                reps = reps_wanted;
                break;
            }
            reps *= 2;
        }
        const std::function<void()> nb = [&] {
            MPI_Request r = MPI_REQUEST_NULL;
            c.nb(&r);
            for (int done = 0; MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0;) {
            }
        };
        std::vector<double> m, w, q;
        for (unsigned b = 0; b < o.batches; ++b) {
            m.push_back(batch(ref, reps, c.mpi));
            q.push_back(batch(ref, reps, nb));
            w.push_back(batch(ref, reps, c.weft));
        }
        const bool ok = c.check();
        int all_ok = ok ? 1 : 0, every = 0;
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Iallreduce(&all_ok, &every, 1, MPI_INT, MPI_MIN, ref, &r);
        wait_yielding(r);
        if (every == 0) {
            if (!ok) std::fprintf(stderr, "coll_probe: locality %u: wrong result of %s (%zu B)\n", me, c.op, c.size);
            ++wrong;
            continue;
        }
        if (me == 0) {
            const double mm = median(m), wm = median(w), qm = median(q);
            const double mlo = *std::min_element(m.begin(), m.end()), wlo = *std::min_element(w.begin(), w.end());
            std::printf("coll op=%s size=%zu path=%s ranks=%u mpi_us=%.3f mpi_nb_us=%.3f weft_us=%.3f ratio=%.2f "
                        "min_ratio=%.2f nb_ratio=%.2f reps=%u batches=%u\n",
                        c.op, c.size, c.path, n, mm * 1e6, qm * 1e6, wm * 1e6, wm / mm, wlo / mlo, wm / qm, reps, o.batches);
            std::fflush(stdout);
        }
    }
    MPI_Comm_free(&ref);
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const probe_options o = parse(argc, argv);
    std::vector<char*> args(argv, argv + argc);
    static char spmd[] = "--weft:spmd";
    args.push_back(spmd);
    return weft::run(static_cast<int>(args.size()), args.data(), [&](int, char**) -> int {
        if (weft::get_num_localities() < 2) {
            std::fprintf(stderr, "coll_probe: needs at least 2 localities (mpirun -np 2 ...)\n");
            return 2;
        }
        return run(o);
    });
}
