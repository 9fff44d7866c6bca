// The distributed transpose on weft's components and actions (issue #25; seed 003 §6.2,
// Figure 3), shared by bench/transpose/weft_distributed.cpp (the benchmark) and
// tests/distributed/transpose.cpp (ctest at 1, 2 and 4 ranks, sanitizers included).
//
// A and B (common.hpp: order x order, row-major, PRK's values) are cut into R = L x K row
// blocks of bo = order / R rows (L localities, K blocks per locality, default 1); block r
// holds rows [r*bo, (r+1)*bo) of A and of B and is a `transpose_row_block` component
// placed by container_layout(R) (the blocks of one locality are consecutive). B's block r
// needs, for every block c, the bo x bo piece A(rows of c, columns of r): B(j, i) += A(i, j).
// Each such block transposition runs where its destination lives, on block r's locality:
//   - the diagonal piece (c = r) is transposed straight out of block r's own A;
//   - every other piece is asked for with piece_action on block c, in S slices of whole
//     bands of tile rows (--slices, 16 by default; all requests at once, before the
//     diagonal, each a future); each copies its rows of A(rows of c, columns of r) into a
//     weft::serialization::buffer<double> (uninitialized until written) and
//     adds 1 to those elements of A as it reads them (every element of A lies in exactly
//     one piece per iteration, so A(i, j) += 1 happens once, as in the MPI reference's
//     packing loop). The buffer is the action's result: above the archive's zero-copy
//     threshold (64 KiB; docs/distributed.md) it leaves as a chunk of its own and is
//     received straight into the caller's buffer. A piece of a block on the same
//     locality (K > 1) is a task with no serialization.
//   - each slice is transposed into B's columns [c*bo, (c+1)*bo) by a continuation of its
//     future (.then), tile by tile (--tile), as soon as it arrives: no lock step. Slices
//     pipeline a piece: the serving locality copies the next slice while the requester
//     receives and transposes the last (one request per piece was 1.5x slower at
//     --order=4000 on 2 ranks: the requester idled while the whole piece was copied).
// The tiles of one transposition run as weft::for_each(par) over bands of tile rows, so
// a locality with several workers shares one piece among them. iterate_action returns
// once block r's B rows are complete and its diagonal part of A is incremented; the
// driver (locality 0) calls it on every block and waits for them all: a barrier per
// iteration, after which every piece of A has been read and incremented.
#pragma once

#include "transpose/common.hpp"

#include <weft/algorithms/for_each.hpp>
#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

/// One row block of A and B (rows [index*bo, (index+1)*bo)), on the locality that holds it.
/// Not migratable (no serialize): its id resolves with no message. Its actions may run
/// concurrently: piece() calls from other blocks touch columns of A that no other call of
/// the same iteration touches, iterate() writes B and the diagonal columns of A.
struct transpose_row_block : weft::component<transpose_row_block> {
    transpose_row_block(std::size_t order, std::size_t tile, std::size_t blocks, std::size_t slices)
        : order_(order), tile_(std::max<std::size_t>(1, std::min(tile, order))), blocks_(blocks),
          bo_(order / blocks),
          // Allocated, not written: init() is the first touch, on this locality.
          a_(std::make_unique_for_overwrite<double[]>(std::max<std::size_t>(bo_ * order, 1))),
          b_(std::make_unique_for_overwrite<double[]>(std::max<std::size_t>(bo_ * order, 1))) {
        bands_.resize((bo_ + tile_ - 1) / tile_);
        std::iota(bands_.begin(), bands_.end(), std::size_t{0});
        // Whole bands of tile rows per slice, `slices` slices at most.
        const std::size_t per = (bands_.size() + std::max<std::size_t>(slices, 1) - 1) / std::max<std::size_t>(slices, 1);
        slice_rows_ = std::max<std::size_t>(per, 1) * tile_;
    }

    /// This block's number and every block's id (in block order).
    void setup(std::size_t index, std::vector<weft::id_type> blocks) {
        index_ = index;
        peers_ = std::move(blocks);
    }

    /// PRK's initial values over this block's rows: A(i, j) = i * order + j, B = 0, in the
    /// bands of tile rows that the transpositions use.
    void init() {
        weft::for_each(weft::execution::par, bands_, [this](std::size_t band) {
            const std::size_t i0 = band * tile_, i1 = std::min(bo_, i0 + tile_);
            for (std::size_t ii = i0; ii < i1; ++ii)
                for (std::size_t j = 0; j < order_; ++j) {
                    a_[ii * order_ + j] = static_cast<double>((first_row() + ii) * order_ + j);
                    b_[ii * order_ + j] = 0.0;
                }
        });
    }

    /// Rows [r0, r1) (of this block) of A's columns of block `c`: (r1 - r0) x bo doubles,
    /// row-major, and A += 1 over them.
    weft::serialization::buffer<double> piece(std::size_t c, std::size_t r0, std::size_t r1) {
        r1 = std::min(r1, bo_);
        r0 = std::min(r0, r1);
        weft::serialization::buffer<double> out((r1 - r0) * bo_);
        double* const a = a_.get() + c * bo_;
        for (std::size_t ii = r0; ii < r1; ++ii) {
            double* const row = a + ii * order_;
            double* const dst = out.data() + (ii - r0) * bo_;
            for (std::size_t jj = 0; jj < bo_; ++jj) {
                dst[jj] = row[jj];
                row[jj] += 1.0;
            }
        }
        return out;
    }

    /// One iteration of this block: B(rows of this block) += the transposed pieces of every
    /// block's A, and A += 1 over the diagonal piece. Returns when all are added.
    void iterate() {
        std::vector<weft::future<void>> done;
        done.reserve(blocks_);
        // Every remote request first, starting with the next block (so that the blocks do
        // not all ask block 0 first); each piece is added as soon as it arrives.
        for (std::size_t s = 1; s < blocks_; ++s) {
            const std::size_t c = (index_ + s) % blocks_;
            for (std::size_t r0 = 0; r0 < bo_; r0 += slice_rows_) {
                const std::size_t r1 = std::min(bo_, r0 + slice_rows_);
                done.push_back(weft::async(piece_action{}, peers_[c], index_, r0, r1)
                                   .then([this, c, r0, r1](weft::future<weft::serialization::buffer<double>> f) {
                                       weft::serialization::buffer<double> in = f.get();
                                       add_rows(in.data(), bo_, c, r0, r1, false);
                                   }));
            }
        }
        // The diagonal piece, in place, while the others travel.
        add_rows(a_.get() + index_ * bo_, order_, index_, 0, bo_, true);
        for (auto& f : done) f.get();  // rethrows a failed request
    }

    /// PRK's check over this block's rows of B after `applications` iterations.
    double abs_error(std::size_t iterations) const {
        weft::bench::transpose::problem p;
        p.order = order_;
        p.tile = tile_;
        return weft::bench::transpose::abs_error_rows(p, b_.get(), first_row(), first_row() + bo_,
                                                      static_cast<unsigned>(iterations + 1));
    }

    /// The worker count of this block's locality.
    unsigned workers() const { return weft::num_workers(); }

    WEFT_COMPONENT_ACTION(transpose_row_block, setup, setup_action);
    WEFT_COMPONENT_ACTION(transpose_row_block, init, init_action);
    WEFT_COMPONENT_ACTION(transpose_row_block, piece, piece_action);
    WEFT_COMPONENT_ACTION(transpose_row_block, iterate, iterate_action);
    WEFT_COMPONENT_ACTION(transpose_row_block, abs_error, abs_error_action);
    WEFT_COMPONENT_ACTION(transpose_row_block, workers, workers_action);

private:
    std::size_t first_row() const noexcept { return index_ * bo_; }

    /// B(jj, c*bo + ii) += src(ii, jj) for rows [r0, r1) of the bo x bo piece of block c
    /// (`src` points at row r0, rows `stride` apart; r0 a multiple of the tile), tile by
    /// tile, in parallel over bands of tile rows (each band writes its own columns of B);
    /// with `bump`, src(ii, jj) += 1 as it is read (the diagonal).
    void add_rows(double* src, std::size_t stride, std::size_t c, std::size_t r0, std::size_t r1, bool bump) {
        double* const b = b_.get() + c * bo_;
        const auto first = bands_.begin() + static_cast<std::ptrdiff_t>(r0 / tile_);
        const auto last = bands_.begin() + static_cast<std::ptrdiff_t>((r1 + tile_ - 1) / tile_);
        weft::for_each(weft::execution::par, first, last, [=, this](std::size_t band) {
            const std::size_t i0 = band * tile_, i1 = std::min(r1, i0 + tile_);
            for (std::size_t j0 = 0; j0 < bo_; j0 += tile_) {
                const std::size_t j1 = std::min(bo_, j0 + tile_);
                for (std::size_t ii = i0; ii < i1; ++ii)
                    for (std::size_t jj = j0; jj < j1; ++jj) {
                        b[jj * order_ + ii] += src[(ii - r0) * stride + jj];
                        if (bump) src[(ii - r0) * stride + jj] += 1.0;
                    }
            }
        });
    }

    std::size_t order_ = 0;
    std::size_t tile_ = 1;
    std::size_t blocks_ = 1;
    std::size_t bo_ = 0;  // rows per block: order / blocks
    std::size_t index_ = 0;
    std::size_t slice_rows_ = 1;  // rows of A per piece request: whole bands of tile rows
    std::vector<weft::id_type> peers_;
    std::unique_ptr<double[]> a_;  // rows [index*bo, (index+1)*bo) of A, row-major
    std::unique_ptr<double[]> b_;  // and of B
    std::vector<std::size_t> bands_;  // 0 .. bands of tile rows - 1, for weft::for_each
};
WEFT_REGISTER_COMPONENT(transpose_row_block);

namespace weft::bench::transpose::distributed {

/// What a run gives the driver: the measured iterations' seconds, the summed PRK error
/// and the workers of every locality.
struct outcome {
    std::vector<double> seconds;
    double error = 0.0;
    unsigned workers = 0;
};

/// Requests per remote piece unless told otherwise (--slices).
inline constexpr std::size_t default_slices = 16;

/// "" if `order` splits into `blocks` row blocks, else why not.
inline std::string check_blocks(std::size_t order, std::size_t blocks) {
    if (blocks != 0 && order % blocks == 0) return {};
    return "--order=" + std::to_string(order) + " is not a multiple of the " + std::to_string(blocks) +
           " row blocks (localities x --blocks-per-locality; each block owns order/blocks rows, as in PRK's MPI "
           "transpose)";
}

/// Runs the transpose of `p` over every locality, `per_locality` row blocks on each, from
/// a task of locality 0: creation, first touch, one warm-up and p.iterations measured
/// iterations (each waited for on every block before the next), PRK's check, destruction.
/// The order must pass check_blocks.
inline outcome run(const problem& p, std::size_t per_locality, std::size_t slices) {
    const std::size_t localities = weft::get_num_localities();
    const std::size_t blocks = localities * per_locality;
    const std::vector<weft::id_type> ids =
        weft::new_<transpose_row_block>(weft::container_layout(blocks), p.order, p.tile, blocks, slices).get();
    auto on_every_block = [&ids](auto action, auto... args) {
        std::vector<weft::future<void>> fs;
        fs.reserve(ids.size());
        for (const auto& id : ids) fs.push_back(weft::async(action, id, args...));
        for (auto& f : fs) f.get();
    };
    {
        std::vector<weft::future<void>> fs;
        for (std::size_t r = 0; r < blocks; ++r)
            fs.push_back(weft::async(transpose_row_block::setup_action{}, ids[r], r, ids));
        for (auto& f : fs) f.get();
    }
    on_every_block(transpose_row_block::init_action{});

    outcome out;
    out.seconds.reserve(p.iterations);
    for (unsigned it = 0; it <= p.iterations; ++it) {
        const double s = time_seconds([&] { on_every_block(transpose_row_block::iterate_action{}); });
        if (it > 0) out.seconds.push_back(s);  // iteration 0 is the warm-up
    }

    std::vector<weft::future<double>> errors;
    for (const auto& id : ids)
        errors.push_back(weft::async(transpose_row_block::abs_error_action{}, id, std::size_t{p.iterations}));
    for (auto& e : errors) out.error += e.get();
    for (std::size_t r = 0; r < blocks; r += per_locality)  // one block per locality
        out.workers += weft::async(transpose_row_block::workers_action{}, ids[r]).get();
    std::vector<weft::future<void>> gone;
    for (const auto& id : ids) gone.push_back(weft::destroy(id));
    for (auto& g : gone) g.get();
    return out;
}

}  // namespace weft::bench::transpose::distributed
