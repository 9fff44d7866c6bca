// reduce, inclusive_scan and sort with the standard library's sequential algorithms (no
// execution policy): the floor the parallel versions are measured against. Ignores
// --workers (reports 1).
#include "algorithms/common.hpp"

#include <algorithm>
#include <numeric>

namespace {

namespace al = weft::bench::algorithms;
using al::value_type;

struct serial_algorithms {
    value_type reduce(const value_type* first, const value_type* last) const {
        return std::reduce(first, last, value_type{0});
    }
    void inclusive_scan(const value_type* first, const value_type* last, value_type* out) const {
        std::inclusive_scan(first, last, out);
    }
    void sort(value_type* first, value_type* last) const { std::sort(first, last); }
};

}  // namespace

int main(int argc, char** argv) {
    const al::problem p = al::parse_problem(argc, argv);
    serial_algorithms a;
    al::run("serial", 1, p, a);
    return 0;
}
