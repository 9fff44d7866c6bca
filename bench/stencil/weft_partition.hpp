// The weft stencil's data and step, shared by bench/stencil/weft.cpp and the grain-size
// study (bench/grain_size): HPX's partition_data and heat_part (1d_stencil_4, seed 000
// §5.1.1; digest §3.1) over weft::shared_future.
#pragma once

#include "stencil/common.hpp"

#include <weft/futures/dataflow.hpp>
#include <weft/futures/future.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace weft::bench::stencil {

/// The points of one partition at one step: allocated uninitialised, like HPX's
/// partition_data, since heat_part writes every point.
class partition {
public:
    explicit partition(std::size_t n) : data_(std::make_unique_for_overwrite<double[]>(n)), size_(n) {}
    double* data() noexcept { return data_.get(); }
    const double* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    double front() const noexcept { return data_[0]; }
    double back() const noexcept { return data_[size_ - 1]; }

private:
    std::unique_ptr<double[]> data_;
    std::size_t size_;
};

/// Partition m one step later; needs the last point of l and the first point of r.
inline partition heat_part(const partition& l, const partition& m, const partition& r) {
    partition next(m.size());
    heat_range(m.data(), l.back(), r.front(), next.data(), m.size());
    return next;
}

using shared_partition = weft::shared_future<partition>;

/// heat_part on the three (ready) inputs. Taking them by value releases them when the
/// task returns, as HPX releases a dataflow's inputs (see bench/stencil/weft.cpp).
inline partition heat_step(shared_partition l, shared_partition m, shared_partition r) {
    return heat_part(l.get(), m.get(), r.get());
}

/// The ring `grid` cut into p's partitions, as ready futures (one task copies them).
inline std::vector<shared_partition> make_partitions(const problem& p, const std::vector<double>& grid) {
    std::vector<shared_partition> U(p.partitions());
    weft::async([&] {
        for (std::size_t i = 0; i < U.size(); ++i) {
            partition part(p.end(i) - p.begin(i));
            std::copy(grid.data() + p.begin(i), grid.data() + p.end(i), part.data());
            U[i] = weft::make_ready_future(std::move(part));
        }
    }).get();
    return U;
}

/// p.nt steps from U, U[i] of step t+1 = dataflow(heat_step, U[i-1], U[i], U[i+1]) of
/// step t: one task builds the whole graph up front, then waits for the last step (HPX's
/// 1d_stencil_4). Returns with U holding the last step, every partition ready.
inline void run_steps(const problem& p, std::vector<shared_partition>& U) {
    weft::async([&] {
        std::vector<shared_partition> next(U.size());
        for (unsigned t = 0; t < p.nt; ++t) {
            for (std::size_t i = 0; i < U.size(); ++i)
                next[i] = weft::dataflow(heat_step, U[p.left(i)], U[i], U[p.right(i)]).share();
            U.swap(next);
        }
        for (const auto& f : U) f.wait();
    }).get();
}

}  // namespace weft::bench::stencil
