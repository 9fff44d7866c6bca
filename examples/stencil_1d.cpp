// Heat diffusion on a ring, the way HPX's 1d_stencil_4 computes it (seed 000 §5.1.1):
// the ring of nx points is cut into partitions of np points, and each partition's next
// time step is a task that runs as soon as the partition and its two neighbours are ready
// at the current step. No barrier separates the steps: weft::dataflow wires the tasks
// together through futures, and the result is checked against a plain serial loop.
//
//   weft_stencil_1d [--nx=N] [--np=N] [--nt=N] [--weft:threads=N]
#include <weft/weft.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using partition = std::vector<double>;

// The heat equation, explicit in time: k = 0.5, dt = 1, dx = 1, as in HPX.
constexpr double k = 0.5;
constexpr double dt = 1.0;
constexpr double dx = 1.0;

double heat(double left, double middle, double right) {
    return middle + (k * dt / (dx * dx)) * (left - 2.0 * middle + right);
}

/// Partition m one step later; l and r are its neighbours on the ring.
partition heat_part(const partition& l, const partition& m, const partition& r) {
    const std::size_t n = m.size();
    partition next(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double left = i == 0 ? l.back() : m[i - 1];
        const double right = i + 1 == n ? r.front() : m[i + 1];
        next[i] = heat(left, m[i], right);
    }
    return next;
}

/// The same nt steps on the whole ring, one point after the other.
std::vector<double> serial_heat(std::vector<double> cur, std::size_t nt) {
    const std::size_t n = cur.size();
    std::vector<double> next(n);
    for (std::size_t t = 0; t < nt; ++t) {
        for (std::size_t x = 0; x < n; ++x) next[x] = heat(cur[(x + n - 1) % n], cur[x], cur[(x + 1) % n]);
        cur.swap(next);
    }
    return cur;
}

/// Same values, or within 1e-12 relative: the two computations do the same arithmetic
/// per point, but a compiler may still contract it differently (into FMAs) in each.
bool same(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t x = 0; x < a.size(); ++x) {
        if (!(std::fabs(a[x] - b[x]) <= 1e-12 * std::fabs(b[x]))) return false;
    }
    return true;
}

bool parse(const char* arg, const char* name, std::size_t& value) {
    const std::size_t len = std::strlen(name);
    if (std::strncmp(arg, name, len) != 0 || arg[len] != '=') return false;
    value = std::strtoull(arg + len + 1, nullptr, 10);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    // ac, av: argc and argv without the --weft: options (other names, for -Wshadow).
    return weft::run(argc, argv, [](int ac, char** av) {
        std::size_t nx = 1'000'000;  // points on the ring
        std::size_t np = 10'000;     // points per partition
        std::size_t nt = 100;        // time steps
        for (int i = 1; i < ac; ++i) {
            if (!parse(av[i], "--nx", nx) && !parse(av[i], "--np", np) && !parse(av[i], "--nt", nt)) {
                std::fprintf(stderr, "usage: %s [--nx=N] [--np=N] [--nt=N] [--weft:threads=N]\n", av[0]);
                return 2;
            }
        }
        if (nx == 0 || np == 0 || np > nx || nt == 0) {
            std::fprintf(stderr, "%s: need 1 <= np <= nx and nt >= 1\n", av[0]);
            return 2;
        }
        const std::size_t parts = (nx + np - 1) / np;  // the last partition takes the rest

        std::vector<double> initial(nx);
        for (std::size_t x = 0; x < nx; ++x) initial[x] = std::sin(static_cast<double>(x));

        // U[i]: partition i at the current step, as a future that is ready once computed.
        std::vector<weft::shared_future<partition>> U(parts);
        for (std::size_t i = 0; i < parts; ++i) {
            const auto first = initial.begin() + static_cast<std::ptrdiff_t>(i * np);
            const auto last = initial.begin() + static_cast<std::ptrdiff_t>(std::min(nx, (i + 1) * np));
            U[i] = weft::make_ready_future(partition(first, last));
        }

        const auto start = std::chrono::steady_clock::now();
        std::vector<weft::shared_future<partition>> next(parts);
        // U[j] is read by partitions j-1, j and j+1 of the next step. Its last reader (in
        // the order the loop below builds them) takes it out of U instead of a copy, so
        // the loop keeps no reference of its own and each partition is freed as soon as
        // its three readers have run: memory stays small and warm. U[j] is last read by
        // partition j+1, except U[0], U[n-2] and U[n-1], all last read by partition n-1.
        const auto input = [&U, parts](std::size_t j, bool last_read) {
            return last_read && parts >= 3 ? std::move(U[j]) : U[j];
        };
        for (std::size_t t = 0; t < nt; ++t) {
            for (std::size_t i = 0; i < parts; ++i) {
                const bool last = i + 1 == parts;
                const std::size_t left = i == 0 ? parts - 1 : i - 1;
                const std::size_t right = last ? 0 : i + 1;
                auto l = input(left, i >= 2);
                auto m = input(i, last);
                auto r = input(right, last);
                // Runs heat_part once the three are ready; unwrapping hands it their
                // values. Each dataflow lets go of its inputs as soon as it has run.
                next[i] = weft::dataflow(weft::unwrapping(heat_part), std::move(l), std::move(m), std::move(r)).share();
            }
            U.swap(next);  // the whole graph is built ahead; the tasks run as it grows
        }
        for (const auto& f : U) f.wait();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        std::vector<double> result;
        result.reserve(nx);
        for (const auto& f : U) result.insert(result.end(), f.get().begin(), f.get().end());
        const bool ok = same(result, serial_heat(initial, nt));

        const double updates = static_cast<double>(nx) * static_cast<double>(nt);
        std::printf("1D heat stencil: %zu points in %zu partitions of %zu, %zu time steps, %u worker(s)\n", nx, parts,
                    np, nt, weft::num_workers());
        std::printf("time: %.3f s, %.3f ms per step, %.1f M points per second\n", seconds,
                    seconds * 1e3 / static_cast<double>(nt), updates / seconds / 1e6);
        std::printf("result matches serial: %s\n", ok ? "yes" : "NO");
        return ok ? 0 : 1;
    });
}
