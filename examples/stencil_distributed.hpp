// The distributed 1D heat stencil (issue #25): partitions as components spread over the
// localities, a dataflow per partition and step, boundary values fetched from other
// localities through an action, no barrier between steps. Shared by the example
// (examples/stencil_distributed.cpp: options, check, summary line) and the benchmark
// (bench/stencil/weft_distributed.cpp: bench/stencil/common.hpp's result line). Each
// program includes this header once: it declares the actions and registers the component.
//
// The kernel, the initial values and the partitioning (np points per partition, the last
// one takes the rest) are bench/stencil/common.hpp's, so a run's final grid equals the
// serial reference (and every other implementation's) bit for bit.
//
// How a run goes (run_distributed, called by the main task on locality 0):
//  1. Layout. The P partitions are dealt to the L localities in contiguous blocks, as
//     weft::container_layout deals components: each locality gets P/L, the first P%L one
//     more. With fewer partitions than localities the last localities get none and only
//     serve. `make_partitions` (a plain action on every locality) creates that locality's
//     block of `stencil_partition` components; each computes its own initial points, so
//     no grid data travels at the start.
//  2. Time loop: one driver per locality, no global stepping. Locality 0 starts
//     `run_block` (a plain action) on every locality that holds partitions, with the ids
//     of all partitions; each driver builds the whole graph of its own partitions for nt
//     steps up front, as examples/stencil_1d.cpp does on one locality:
//       U[t+1][i] = weft::dataflow(advance, left input, U[t][i], right input)
//     where a neighbour on this locality is its shared_future U[t][i±1] and a neighbour on
//     another locality is a weft::future<double> of the one point needed (its last or its
//     first), answered by the neighbour's `boundary` action. Partition data stay on their
//     locality (the futures of a locality's partitions are its driver's); only these
//     single doubles cross localities during the steps. Each partition has two blocks,
//     made and first touched by its component before the clock starts and taken by the
//     driver: step t is in block t % 2, and a local future carries a pointer to it
//     (run_block says why overwriting step t - 1 is safe). The timed region is from the
//     start of the drivers to the moment every one has finished.
//  3. Exchange without a barrier. A partition read from another locality keeps one slot
//     per step in flight, a promise of its (first, last) point: the step's dataflow posts
//     `publish` to its own component once computed, and a remote neighbour's `boundary`
//     action waits on the slot (a suspended task on the owner's locality; no worker
//     blocks), returns its one double and, when every remote reader has read, frees the
//     slot. Either may come first: the slot is made by whichever arrives first. The
//     request for step t is sent when the requester's own partition has finished step
//     t-1 (a continuation), one step ahead of the need: the round trip overlaps a step's
//     work, yet each edge has at most two requests waiting at the owner, whatever nt.
//  4. Gather. Each driver hands its final blocks back to their components (`keep`);
//     locality 0 then takes every partition's data through the `take` action (one
//     message per partition on another locality), assembles the grid, and destroys the
//     components.
#pragma once

#include "stencil/common.hpp"  // bench/stencil/common.hpp: the kernel and the problem

#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace weft::examples::stencil {

namespace st = weft::bench::stencil;

/// A partition's points at one step (a vector that does not zero what it allocates).
using block = weft::serialization::buffer<double>;
/// A partition's two blocks: step t's points are in [t % 2] (double buffering).
using buffers = std::array<block, 2>;

/// P partitions over L localities in contiguous blocks: locality l holds partitions
/// [first(l), first(l + 1)), P/L of them, one more for the first P%L localities.
struct layout {
    std::uint64_t parts = 0;
    std::uint64_t localities = 1;

    std::uint64_t first(std::uint64_t l) const noexcept {
        const std::uint64_t q = parts / localities, r = parts % localities;
        return l * q + std::min(l, r);
    }
    std::uint64_t owner(std::uint64_t i) const noexcept {
        const std::uint64_t q = parts / localities, r = parts % localities;
        const std::uint64_t big = r * (q + 1);  // the partitions of the first r localities
        return i < big ? i / (q + 1) : r + (i - big) / q;
    }
    std::uint64_t left(std::uint64_t i) const noexcept { return i == 0 ? parts - 1 : i - 1; }
    std::uint64_t right(std::uint64_t i) const noexcept { return i + 1 == parts ? 0 : i + 1; }
    /// How many of partition i's neighbours read it from another locality (0, 1 or 2;
    /// 2 also when both are one partition, on a ring of two).
    std::uint32_t remote_readers(std::uint64_t i) const noexcept {
        const std::uint64_t o = owner(i);
        return (owner(left(i)) != o ? 1u : 0u) + (owner(right(i)) != o ? 1u : 0u);
    }
};

/// The first and last points of a partition at one step: what its neighbours need.
struct ends {
    double first = 0;
    double last = 0;
};

}  // namespace weft::examples::stencil

/// One partition: a component on the locality that computes it. It makes the initial
/// points, answers its remote neighbours' `boundary` requests step by step and holds the
/// final points for the gather. Its actions may run concurrently: the slots are under a
/// mutex, and the data is touched once at each end of a run.
class stencil_partition : public weft::component<stencil_partition> {
public:
    using block = weft::examples::stencil::block;
    using buffers = weft::examples::stencil::buffers;
    using ends = weft::examples::stencil::ends;

    /// Points [first_point, first_point + size) of the ring at step 0 in the first block,
    /// and the second block of the pair; `readers`: how many neighbours on other
    /// localities read it at each step. Both blocks are written (first touched) here, on
    /// the partition's locality and before the time loop, as the MPI reference writes its
    /// two arrays before its clock starts.
    stencil_partition(std::uint64_t first_point, std::uint64_t size, std::uint32_t readers)
        : data_{block(static_cast<std::size_t>(size)), block(static_cast<std::size_t>(size))}, readers_(readers) {
        for (std::size_t x = 0; x < data_[0].size(); ++x)
            data_[1][x] = data_[0][x] = weft::bench::stencil::initial_value(static_cast<std::size_t>(first_point) + x);
        if (readers_ > 0) publish(0, data_[0].front(), data_[0].back());
    }

    /// The two blocks, step 0 in the first, moved out (the driver, once).
    buffers initial() { return std::move(data_); }

    /// The ends of the partition at `step` (the driver, for a step its remote neighbours
    /// will read).
    void publish(std::uint64_t step, double first, double last) {
        weft::promise<ends> p;
        {
            const std::lock_guard lock(mutex_);
            p = std::move(slot(step).producer);
        }
        // Set outside the lock; the slot (possibly freed by its readers as soon as the
        // value is there) is no longer touched.
        p.set_value(ends{first, last});
    }

    /// A remote neighbour's request: the last point at `step` (`last`) or the first one.
    /// Waits until the driver has published that step.
    double boundary(std::uint64_t step, bool last) {
        weft::shared_future<ends> value;
        {
            const std::lock_guard lock(mutex_);
            value = slot(step).value;
        }
        const ends e = value.get();  // suspends this task until published
        {
            const std::lock_guard lock(mutex_);
            const auto it = slots_.find(step);
            if (it != slots_.end() && ++it->second.reads >= readers_) slots_.erase(it);
        }
        return last ? e.last : e.first;
    }

    /// The final points (the driver, at the end of its steps).
    void keep(block final_points) { data_[0] = std::move(final_points); }
    /// The final points, moved out (the gather, once).
    block take() { return std::move(data_[0]); }

    WEFT_COMPONENT_ACTION(stencil_partition, initial, initial_action);
    WEFT_COMPONENT_ACTION(stencil_partition, publish, publish_action);
    WEFT_COMPONENT_ACTION(stencil_partition, boundary, boundary_action);
    WEFT_COMPONENT_ACTION(stencil_partition, keep, keep_action);
    WEFT_COMPONENT_ACTION(stencil_partition, take, take_action);

private:
    /// The promise of a step's ends and its readers' view of it.
    struct step_slot {
        weft::promise<ends> producer;
        weft::shared_future<ends> value;
        std::uint32_t reads = 0;
    };
    /// The slot of `step`, made by whoever comes first (under mutex_).
    step_slot& slot(std::uint64_t step) {
        auto [it, made] = slots_.try_emplace(step);
        if (made) it->second.value = it->second.producer.get_future().share();
        return it->second;
    }

    std::mutex mutex_;
    std::map<std::uint64_t, step_slot> slots_;  // the steps in flight: a few at most
    buffers data_;  // the two blocks until the driver takes them; the final points after
    std::uint32_t readers_ = 0;
};
WEFT_REGISTER_COMPONENT(stencil_partition);

namespace weft::examples::stencil {

/// Run on every locality: creates its block of the nx-point ring's partitions of np
/// points (none if it has no share); returns their ids in partition order.
inline std::vector<weft::id_type> make_partitions(std::uint64_t nx, std::uint64_t np) {
    const layout lay{(nx + np - 1) / np, weft::get_num_localities()};
    const std::uint64_t me = weft::get_locality_id();
    std::vector<weft::future<weft::id_type>> made;
    for (std::uint64_t i = lay.first(me); i < lay.first(me + 1); ++i) {
        const std::uint64_t begin = i * np, end = std::min(nx, begin + np);
        made.push_back(weft::new_<stencil_partition>(weft::find_here(), begin, end - begin, lay.remote_readers(i)));
    }
    std::vector<weft::id_type> ids;
    ids.reserve(made.size());
    for (auto& f : made) ids.push_back(f.get());
    return ids;
}

/// A neighbour's block at one step, on this locality: its driver's buffer, ready once
/// the step is computed.
using local_input = weft::shared_future<const block*>;
using remote_input = weft::future<double>;  // the one point of a neighbour elsewhere

inline double last_point(local_input& f) { return f.get()->back(); }
inline double last_point(remote_input& f) { return f.get(); }
inline double first_point(local_input& f) { return f.get()->front(); }
inline double first_point(remote_input& f) { return f.get(); }

/// One partition one step on: the dataflow's function. It writes the new step into `out`,
/// the partition's other block (which held step - 2: see run_block), and returns it. If
/// remote neighbours read the new step (`publish`), it hands the ends to the partition's
/// component.
struct advance {
    weft::id_type partition;
    block* out = nullptr;
    std::uint64_t step = 0;  ///< the step this computes
    bool publish = false;

    template <class Left, class Right>
    const block* operator()(Left left, local_input middle, Right right) const {
        const block& m = *middle.get();
        st::heat_range(m.data(), last_point(left), first_point(right), out->data(), m.size());
        if (publish) weft::post(stencil_partition::publish_action{}, partition, step, out->front(), out->back());
        return out;
    }
};

/// Run on every locality that holds partitions: nt steps of its own block of them, the
/// whole graph built up front; returns when every one of its partitions has finished the
/// last step and handed it to its component. `ids` are every partition's, in order.
inline void run_block(std::vector<weft::id_type> ids, std::uint64_t nt) {
    const layout lay{ids.size(), weft::get_num_localities()};
    const std::uint64_t me = weft::get_locality_id();
    const std::uint64_t first = lay.first(me), count = lay.first(me + 1) - first;
    const auto mine = [&](std::uint64_t i) { return lay.owner(i) == me; };
    const auto at = [first](std::uint64_t i) { return static_cast<std::size_t>(i - first); };

    // Double buffering: partition i's step t is in buf[i][t % 2], so step t + 1 overwrites
    // step t - 1. That is safe without a copy: step t - 1 of i is read on this locality
    // only by step t of i - 1, i and i + 1 (remote neighbours get copies of its ends,
    // through publish), and step t + 1 of i waits for those three. (A fresh block per step,
    // as examples/stencil_1d.cpp allocates, made glibc unmap and refault its per-thread
    // heaps between runs here: bench/RESULTS.md, 2026-11-29.)
    std::vector<buffers> buf(static_cast<std::size_t>(count));
    {
        std::vector<weft::future<buffers>> taken;
        taken.reserve(buf.size());
        for (std::uint64_t i = first; i < first + count; ++i)
            taken.push_back(weft::async(stencil_partition::initial_action{}, ids[i]));
        for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = taken[k].get();
    }
    std::vector<local_input> U(buf.size()), next(U.size());
    for (std::size_t k = 0; k < buf.size(); ++k) U[k] = weft::make_ready_future(static_cast<const block*>(&buf[k][0])).share();

    // A remote neighbour's point at step t: asked for once `after` (this partition at
    // step t-1; none for t = 0) is ready; then() unwraps the action's future, so no task
    // waits for the answer. (This shape found a scheduler bug: a task waiting on a future
    // polled the network in its own context, and a continuation run by that poll could
    // suspend it while it held the transport's lock. Fixed in poll_while_waiting; the
    // ring-of-two test below is its regression test.)
    const auto ask = [&ids](std::uint64_t owner, std::uint64_t t, bool last, const local_input* after) {
        const weft::id_type id = ids[owner];
        if (after == nullptr) return weft::async(stencil_partition::boundary_action{}, id, t, last);
        return after->then([id, t, last](const local_input&) {
            return weft::async(stencil_partition::boundary_action{}, id, t, last);
        });
    };

    std::vector<weft::future<const block*>> final_step(U.size());
    for (std::uint64_t t = 0; t < nt; ++t) {
        const bool last_step = t + 1 == nt;
        for (std::uint64_t i = first; i < first + count; ++i) {
            const std::uint64_t l = lay.left(i), r = lay.right(i);
            const local_input* previous = t == 0 ? nullptr : &next[at(i)];  // step t-1 (before the swap below)
            const advance step{ids[i], &buf[at(i)][(t + 1) % 2], t + 1, !last_step && lay.remote_readers(i) > 0};
            auto build = [&](auto left, auto right) {
                auto f = weft::dataflow(step, std::move(left), U[at(i)], std::move(right));
                if (last_step) final_step[at(i)] = std::move(f);
                else next[at(i)] = std::move(f).share();
            };
            // The four cases of where the two neighbours live. (On a ring of one or two
            // partitions a neighbour may be the partition itself or both neighbours one.)
            if (mine(l) && mine(r)) build(U[at(l)], U[at(r)]);
            else if (mine(l)) build(U[at(l)], ask(r, t, false, previous));
            else if (mine(r)) build(ask(l, t, true, previous), U[at(r)]);
            else build(ask(l, t, true, previous), ask(r, t, false, previous));
        }
        // `next` held step t-1 until this step's requests hung on it; it now holds step
        // t+1, which becomes U, and U (step t) becomes next.
        if (!last_step) U.swap(next);
    }

    // Every step of a partition is an ancestor of its last one, so once every last step is
    // ready no task of this graph touches `buf` any more, even if one of them threw.
    for (auto& f : final_step) f.wait();
    std::vector<weft::future<void>> kept;
    kept.reserve(final_step.size());
    for (std::uint64_t i = first; i < first + count; ++i) {
        (void)final_step[at(i)].get();  // rethrows a step's exception
        kept.push_back(weft::async(stencil_partition::keep_action{}, ids[i], std::move(buf[at(i)][nt % 2])));
    }
    for (auto& f : kept) f.get();
}

/// This locality's worker count (for the total over localities).
inline std::uint32_t workers_here() { return weft::num_workers(); }

}  // namespace weft::examples::stencil

WEFT_PLAIN_ACTION(weft::examples::stencil::make_partitions, stencil_make_partitions_action);
WEFT_PLAIN_ACTION(weft::examples::stencil::run_block, stencil_run_block_action);
WEFT_PLAIN_ACTION(weft::examples::stencil::workers_here, stencil_workers_action);

namespace weft::examples::stencil {

/// The workers of every locality together.
inline unsigned total_workers() {
    std::vector<weft::future<std::uint32_t>> each;
    for (const weft::id_type& l : weft::find_all_localities()) each.push_back(weft::async(stencil_workers_action{}, l));
    unsigned total = 0;
    for (auto& f : each) total += f.get();
    return total;
}

struct outcome {
    std::vector<double> grid;  ///< the ring after nt steps, gathered on this locality
    double seconds = 0;        ///< the time loop's wall time (every driver, start to end)
};

/// One run of p on every locality (from the main task on locality 0): creates the
/// partitions, runs the drivers (timed), gathers the final grid, destroys the partitions.
inline outcome run_distributed(const st::problem& p) {
    const std::vector<weft::id_type> localities = weft::find_all_localities();
    std::vector<weft::future<std::vector<weft::id_type>>> made;
    for (const weft::id_type& l : localities)
        made.push_back(weft::async(stencil_make_partitions_action{}, l, std::uint64_t{p.nx}, std::uint64_t{p.np}));
    std::vector<weft::id_type> ids;
    ids.reserve(p.partitions());
    for (auto& f : made)
        for (const weft::id_type& id : f.get()) ids.push_back(id);

    const layout lay{ids.size(), localities.size()};
    outcome out;
    const auto start = std::chrono::steady_clock::now();
    std::vector<weft::future<void>> drivers;
    for (std::uint64_t l = 0; l < localities.size(); ++l)
        if (lay.first(l + 1) > lay.first(l))
            drivers.push_back(weft::async(stencil_run_block_action{}, localities[l], ids, std::uint64_t{p.nt}));
    for (auto& f : drivers) f.get();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::vector<weft::future<block>> parts;
    parts.reserve(ids.size());
    for (const weft::id_type& id : ids) parts.push_back(weft::async(stencil_partition::take_action{}, id));
    out.grid.reserve(p.nx);
    for (auto& f : parts) {
        const block b = f.get();
        out.grid.insert(out.grid.end(), b.begin(), b.end());
    }
    std::vector<weft::future<void>> gone;
    for (const weft::id_type& id : ids) gone.push_back(weft::destroy(id));
    for (auto& f : gone) f.get();
    return out;
}

}  // namespace weft::examples::stencil
