// Strassen on weft: every step above the size cutoff and below the depth cutoff runs its 7
// products as weft::task_group children, joins them and combines; deeper steps run
// serially inside their task.
#include "strassen/strassen.hpp"

#include <weft/weft.hpp>

int main(int argc, char** argv) {
    namespace st = weft::bench::strassen;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const st::options o = st::parse_options(argc, argv);
    st::measure("weft-fork_join", rt.num_workers(), o, [&o](const st::product& m) {
        weft::async([&] { st::multiply<weft::task_group>(o.p, m, 1); }).get();
    });
    return 0;
}
