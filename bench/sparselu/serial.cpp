// SparseLU on one thread: the factorisation loop of sparselu.hpp with every block
// operation called in place, no task at all: the floor the task-parallel versions are
// measured against.
#include "sparselu/sparselu.hpp"

int main(int argc, char** argv) {
    namespace slu = weft::bench::sparselu;
    const slu::options o = slu::parse_options(argc, argv);
    // One thread whatever --workers says.
    slu::measure("serial", 1, o, [](slu::matrix& a) { slu::factor_serial(a); });
    return 0;
}
