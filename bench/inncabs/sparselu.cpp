// INNCABS SparseLU (seed 000 Table 7: loop-like, no synchronisation but the joins,
// coarse): the LU factorisation, without pivoting, of a sparse matrix of nb x nb blocks of
// bs x bs floats, after the Barcelona OpenMP Tasks Suite's sparselu, which INNCABS ports
// to std::async. For each diagonal block kk, the producer factors it itself (lu0), then
// starts one async per fwd (row kk) and per bdiv (column kk), get()s them all, then one
// async per bmod (the Schur update of block (ii, jj), which allocates it first if it is
// absent: the fill-in), and get()s those before the next kk.
//
// The block kernels, the matrix, its values (strictly diagonally dominant, so that no
// pivoting is needed), the serial factorisation and the checks are those of
// bench/sparselu/sparselu.hpp (see its comment). What is INNCABS's and BOTS's here is
// the sparsity pattern and the size: INNCABS's default is 50 x 50 blocks of 100 x 100
// (sparselu.cpp's defaults), with BOTS's pattern (genmat), restated: block (i, j) is
// present at the start iff |i - j| <= 1, or i and j are both even and the smaller of the
// two is a multiple of 6. For nb = 50: 364 blocks at the start, 1,300 after the fill-in;
// 625 fwd + 625 bdiv + 10,425 bmod = 11,675 tasks (seed 000 Table 3 counts 11,099 for
// its run of the std version) and 50 lu0 on the producer.
//
// The check: the matrix is first factored serially (untimed) and those factors pass
// sparselu.hpp's backward-error bound; every run's factors must then equal them bit for
// bit, block presence included (the tasks of a phase write distinct blocks and each
// block sees the same operations in the same order, whoever runs them). Exit 1 if not.
//
// Options: --nb=N (blocks per side, 1..200, default 50), --bs=N (block side, 1..500,
// default 100), plus inncabs's --launch, --reps. Small input: --nb=12 --bs=16 (218 tasks).
#include "inncabs/inncabs.hpp"
#include "sparselu/sparselu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace slu = weft::bench::sparselu;

/// BOTS's (and INNCABS's) pattern: whether block (i, j) is present before the
/// factorisation (see the file comment).
bool initially_present(int i, int j) {
    if (i - j <= 1 && j - i <= 1) return true;
    return i % 2 == 0 && j % 2 == 0 && std::min(i, j) % 6 == 0;
}

/// The matrix to factor: BOTS's pattern, sparselu.hpp's values (the same generator,
/// then strict row diagonal dominance).
slu::matrix generate(int nb, int bs) { return slu::generate(nb, bs, &initially_present); }

/// The tasks of the factorisation (fwd + bdiv + bmod), from the pattern alone.
std::uint64_t count_tasks(int nb) {
    const auto n = static_cast<std::size_t>(nb);
    std::vector<char> present(n * n);
    const auto at = [&](int i, int j) -> char& {
        return present[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)];
    };
    for (int i = 0; i < nb; ++i) {
        for (int j = 0; j < nb; ++j) at(i, j) = initially_present(i, j) ? 1 : 0;
    }
    std::uint64_t tasks = 0;
    for (int kk = 0; kk < nb; ++kk) {
        for (int x = kk + 1; x < nb; ++x) tasks += static_cast<std::uint64_t>(at(kk, x) + at(x, kk));
        for (int ii = kk + 1; ii < nb; ++ii) {
            if (at(ii, kk) == 0) continue;
            for (int jj = kk + 1; jj < nb; ++jj) {
                if (at(kk, jj) == 0) continue;
                at(ii, jj) = 1;
                ++tasks;
            }
        }
    }
    return tasks;
}

/// The factorisation with an async per block operation, a phase's futures joined before
/// the next phase (see the file comment).
void factor(slu::matrix& a, const inncabs::launch l) {
    const int nb = a.nb();
    const int bs = a.bs();
    std::vector<inncabs::future<void>> phase;
    for (int kk = 0; kk < nb; ++kk) {
        float* const diag = a.block(kk, kk);
        slu::lu0(diag, bs);
        for (int jj = kk + 1; jj < nb; ++jj) {
            if (float* c = a.block(kk, jj)) phase.push_back(inncabs::async(l, slu::fwd, diag, c, bs));
        }
        for (int ii = kk + 1; ii < nb; ++ii) {
            if (float* r = a.block(ii, kk)) phase.push_back(inncabs::async(l, slu::bdiv, diag, r, bs));
        }
        for (auto& f : phase) f.get();
        phase.clear();
        for (int ii = kk + 1; ii < nb; ++ii) {
            if (a.block(ii, kk) == nullptr) continue;
            for (int jj = kk + 1; jj < nb; ++jj) {
                if (a.block(kk, jj) == nullptr) continue;
                // Only this task touches entry (ii, jj) of the block table in this phase.
                phase.push_back(inncabs::async(l, [&a, ii, jj, kk, bs] {
                    float* t = a.block(ii, jj);
                    if (t == nullptr) t = a.allocate(ii, jj);
                    slu::bmod(a.block(ii, kk), a.block(kk, jj), t, bs);
                }));
            }
        }
        for (auto& f : phase) f.get();
        phase.clear();
    }
}

}  // namespace

int main(int argc, char** argv) {
    int nb = 50, bs = 100;
    const inncabs::common_options o = inncabs::parse(
        argc, argv, "inncabs sparselu: blocked sparse LU, an async per block operation, joined per phase",
        {{"nb", "a number of blocks per side from 1 to 200 (default 50)",
          [&nb](std::string_view v) { return inncabs::parse_number(v, nb, 1, 200); }},
         {"bs", "a block side from 1 to 500 elements (default 100)",
          [&bs](std::string_view v) { return inncabs::parse_number(v, bs, 1, 500); }}});

    const slu::matrix original = generate(nb, bs);
    slu::matrix reference = original.clone();
    slu::factor_serial(reference);
    const double ratio = slu::backward_error_ratio(original, reference);
    if (!(ratio <= 1.0)) {
        std::fprintf(stderr, "inncabs sparselu: the serial factors fail the backward-error check (%g > 1)\n", ratio);
        return inncabs::exit_wrong;
    }
    const std::uint64_t expected = slu::hash(reference);

    // Each run factors a fresh copy, made by the check of the run before (untimed).
    slu::matrix next = original.clone();
    return inncabs::run(
        "sparselu", o, std::to_string(nb) + "x" + std::to_string(bs), count_tasks(nb),
        [&] {
            slu::matrix a = std::move(next);
            factor(a, o.policy);
            return a;
        },
        [&](const slu::matrix& a) {
            const bool ok = slu::identical(a, reference);
            next = original.clone();
            if (ok) return inncabs::verdict{true, std::to_string(expected)};
            return inncabs::verdict{false, "factors differ from the serial ones (hash " + std::to_string(slu::hash(a)) +
                                               " != " + std::to_string(expected) + ")"};
        });
}
