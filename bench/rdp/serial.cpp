// The serial forms on one thread: the recursion of ge.hpp / sw.hpp / fw.hpp with every
// fork run in order on the caller (impl=serial), and the plain loop that is every
// program's oracle, timed once (impl=serial-loop). The floor the parallel forms are
// measured against, and the recursion's locality against the loop's.
#include "rdp/fw.hpp"
#include "rdp/ge.hpp"
#include "rdp/sw.hpp"

int main(int argc, char** argv) {
    namespace rdp = weft::bench::rdp;
    const rdp::options o = rdp::parse_options(argc, argv);
    rdp::with_problem<rdp::ge, rdp::sw, rdp::fw>(o, [&o]<class P>() {
        // One thread whatever --workers says.
        rdp::measure<P>("serial", 1, o, rdp::form::serial, rdp::form_counts{}, [&o](const P& problem, auto& t) {
            rdp::serial_fork fork;
            rdp::run_recursive(problem, t, o.base, fork);
        });
    });
    return 0;
}
