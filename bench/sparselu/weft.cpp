// SparseLU on weft: the producer (one weft task) factors each diagonal block itself, then
// runs one weft::task_group child per fwd and bdiv, joins them, one child per bmod
// (allocating fill-in blocks as it goes), and joins them before the next diagonal block.
#include "sparselu/sparselu.hpp"

#include <weft/weft.hpp>

int main(int argc, char** argv) {
    namespace slu = weft::bench::sparselu;
    weft::runtime rt(argc, argv);  // --weft:threads=W --weft:scheduler=S (scripts/bench passes them)
    const slu::options o = slu::parse_options(argc, argv);
    slu::measure("weft-fork_join", rt.num_workers(), o, [](slu::matrix& a) {
        weft::async([&a] { slu::factor<weft::task_group>(a); }).get();
    });
    return 0;
}
