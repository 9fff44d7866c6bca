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

/// The inputs of partition i's next step, U[i-1], U[i] and U[i+1] on the ring of n, each
/// moved out of U at its last use in the order i = 0, 1, ..., n-1 and copied before: U[j]
/// for 1 <= j <= n-3 is last used as the left input of j+1; U[n-2], U[n-1] and U[0] are
/// last used by partition n-1. The builder then drops no reference of its own, a release that would
/// touch a state's cache line last written by the worker that set it; each reference
/// goes to a task, which lets go of it on the worker that read the state. Rings of fewer
/// than 3 partitions, where one future is several inputs of one call, are copied.
inline void step_inputs(std::vector<shared_partition>& U, std::size_t i, shared_partition& l, shared_partition& m,
                        shared_partition& r) {
    const std::size_t n = U.size();
    const std::size_t left = i == 0 ? n - 1 : i - 1, right = i + 1 == n ? 0 : i + 1;
    if (n < 3 || i <= 1) {
        l = U[left];
        m = U[i];
        r = U[right];
    } else if (i + 1 < n) {
        l = std::move(U[left]);
        m = U[i];
        r = U[right];
    } else {
        l = std::move(U[left]);
        m = std::move(U[i]);
        r = std::move(U[right]);
    }
}

/// p.nt steps from U, U[i] of step t+1 = dataflow(heat_step, U[i-1], U[i], U[i+1]) of
/// step t: one task builds the whole graph up front, then waits for the last step (HPX's
/// 1d_stencil_4). Returns with U holding the last step, every partition ready.
inline void run_steps(const problem& p, std::vector<shared_partition>& U) {
    weft::async([&] {
        std::vector<shared_partition> next(U.size());
        shared_partition l, m, r;
        for (unsigned t = 0; t < p.nt; ++t) {
            for (std::size_t i = 0; i < U.size(); ++i) {
                step_inputs(U, i, l, m, r);
                next[i] = weft::dataflow(heat_step, std::move(l), std::move(m), std::move(r)).share();
            }
            U.swap(next);
        }
        for (const auto& f : U) f.wait();
    }).get();
}

}  // namespace weft::bench::stencil
