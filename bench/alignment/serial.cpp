// Alignment on one thread: every pair aligned in turn, no task at all: the floor the
// task-parallel versions are measured against.
#include "alignment/alignment.hpp"

int main(int argc, char** argv) {
    namespace al = weft::bench::alignment;
    const al::options o = al::parse_options(argc, argv);
    // One thread whatever --workers says.
    al::measure("serial", 1, o, [](const al::scoring& sc, const al::sequence_set& s, std::vector<int>& out) {
        const int n = s.count();
        for (int si = 0; si < n; ++si) {
            for (int sj = si + 1; sj < n; ++sj) out[static_cast<std::size_t>(si * n + sj)] = al::align_pair(sc, s, si, sj);
        }
    });
    return 0;
}
