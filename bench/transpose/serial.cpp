// The transpose on one thread: the tiles in row order, the first touch included; the
// floor the parallel versions are measured against. Ignores --workers (reports 1).
#include "transpose/common.hpp"

#include <cstddef>

namespace {

namespace tr = weft::bench::transpose;

struct serial_tiles {
    template <class Body>
    void for_tiles(std::size_t tiles, const Body& body) const {
        for (std::size_t ti = 0; ti < tiles; ++ti)
            for (std::size_t tj = 0; tj < tiles; ++tj) body(ti, tj);
    }
};

}  // namespace

int main(int argc, char** argv) {
    const tr::problem p = tr::parse_problem(argc, argv);
    serial_tiles t;
    tr::run("serial", 1, p, t);
    return 0;
}
