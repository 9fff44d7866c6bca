// INNCABS Strassen (seed 000 Table 7: recursive, balanced, fine, ~107 us a task, 137,256
// tasks): Strassen-Winograd matrix multiplication, taken by INNCABS from BOTS's strassen.
// Every step above the size cutoff forms its sums, asyncs its 7 products, waits for them
// and combines them; at or below the cutoff, a divide-and-conquer product down to a naive
// kernel. The steps and kernels are bench/strassen/strassen.hpp's (BOTS's strassen, on the
// same kernel); INNCABS has no depth cutoff: every step asyncs.
//
// Sizes: --n=N (a power of two >= 16; default 4096, the suite's standard input) and
// --cutoff=N (a power of two >= 16; default 64, the suite's). Small: --n=256 --cutoff=32
// (399 tasks). The input: A and B of doubles in [0, 1) from a fixed generator
// (strassen.hpp; the suite calls rand()). Tasks: 7 per step, 7 + 49 + ... + 7^L for L levels of steps (4096 / 64:
// 6 levels, 137,256 tasks). The check, after every run: sampled entries of C and
// Freivalds' test against A and B (strassen.hpp's check_product; the suite compares with
// a serial Strassen product instead, which at n = 4096 costs as much as a run); and every
// run must give the bits of the first (the warm-up), which a race would change. C is
// filled with NaNs before every run (by the check, untimed), so an entry no task wrote
// fails the check.
#include "inncabs/inncabs.hpp"
#include "strassen/strassen.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace {

namespace st = weft::bench::strassen;

// Set once by main before any task runs (the suite's global).
std::size_t cutoff = 64;

void multiply_par(const st::product m, const inncabs::launch l) {
    if (m.n <= cutoff) {
        st::multiply_by_quadrants(m.c, m.a, m.b, m.n, m.rc, m.ra, m.rb, false);
        return;
    }
    st::step s(m.c, m.a, m.b, m.n, m.rc, m.ra, m.rb);
    std::array<inncabs::future<void>, 7> products;
    for (std::size_t i = 0; i < products.size(); ++i) products[i] = inncabs::async(l, multiply_par, s.products()[i], l);
    for (inncabs::future<void>& f : products) f.get();
    s.combine();
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t n = 4096;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs strassen: Strassen-Winograd matrix multiplication, an async per product",
        {{"n", "a power of two from 16 to 16384 (default 4096)",
          [&n](std::string_view v) {
              return inncabs::parse_number(v, n, std::size_t{16}, std::size_t{16384}) && st::power_of_two(n);
          }},
         {"cutoff", "a power of two from 16: products of that side or less are divide-and-conquer ones (default 64)",
          [](std::string_view v) {
              return inncabs::parse_number(v, cutoff, std::size_t{16}, std::size_t{1} << 30) &&
                     st::power_of_two(cutoff);
          }}});

    st::matrix a(n), b(n), c(n);
    st::fill_input(a, b);
    const auto poison = [&] { std::memset(c.data(), 0xff, n * n * sizeof(st::real)); };  // NaNs
    const std::uint64_t tasks = st::tasks_created(n, st::params{cutoff, std::numeric_limits<int>::max()});

    std::string first_hash;
    poison();
    return inncabs::run(
        "strassen", o, std::to_string(n), tasks,
        [&] {
            multiply_par(st::product{c.data(), a.data(), b.data(), n, n, n, n}, o.policy);
            return 0;
        },
        [&](int) {
            std::string where;
            const double ratio = st::check_product(a, b, c, &where);
            if (!(ratio <= 1.0)) {
                return inncabs::verdict{false, where + " (" + std::to_string(ratio) + " times the tolerance)"};
            }
            // Every element is computed by the same operations whoever runs them, so every
            // run must give the warm-up's bits.
            const std::string hash = std::to_string(st::hash(c));
            if (first_hash.empty()) first_hash = hash;
            if (hash != first_hash) {
                return inncabs::verdict{false, "C's hash " + hash + " != the warm-up's " + first_hash};
            }
            poison();  // the next run's C, untimed
            return inncabs::verdict{true, hash};
        });
}
