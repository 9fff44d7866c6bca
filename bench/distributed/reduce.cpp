// Issue #25's segmented reduce against MPI_Allreduce, in the same run: the sum of --n
// doubles (default 10^8) spread over the localities, --reps repetitions of each after a
// warm-up. The comparison itself, its output lines and its check are reduce.hpp's
// (shared with tests/distributed/apps.cpp). Every locality runs the program (--weft:spmd
// is implied: the program asks for it).
//
// Run: mpirun -np 2 bench_distributed_reduce --weft:threads=1 (as root with the
// OMPI_ALLOW_RUN_AS_ROOT variables; -np 4 on 2 cores also needs
// OMPI_MCA_rmaps_base_oversubscribe=1).
#include "reduce.hpp"

#include <weft/weft.hpp>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

namespace dr = weft::bench::distributed_reduce;

[[noreturn]] void usage(char const* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: mpirun -np N %s [--n=N] [--reps=N] [--weft:...]\n"
                 "  --n=N     doubles in all (default 100000000)\n"
                 "  --reps=N  measured repetitions of each, after one warm-up (default 10)\n",
                 program);
    std::exit(status);
}

dr::options parse(int argc, char** argv) {
    dr::options o;
    weft::bench::parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--n") return parse_number(v, o.n) && o.n >= 1;
        if (name == "--reps") return parse_number(v, o.reps) && o.reps >= 1;
        return false;
    });
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const dr::options o = parse(argc, argv);
    std::vector<char*> args(argv, argv + argc);
    static char spmd[] = "--weft:spmd";
    args.push_back(spmd);
    return weft::run(static_cast<int>(args.size()), args.data(), [&](int, char**) -> int { return dr::body(o); });
}
