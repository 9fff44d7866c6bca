// A spawned closure stored with its task descriptor in one pooled block.
#pragma once

#include <weft/sched/detail/exceptions.hpp>
#include <weft/sched/detail/spawn.hpp>
#include <weft/sched/detail/suspend.hpp>

#include <functional>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

namespace weft::detail {

/// Destroys a block made by make_block.
template <class Block>
void destroy_block(Block* b) noexcept {
    b->~Block();
    free_task_block(b, sizeof(Block));
}

/// Allocates a block for Block from worker `w`'s pool (w may be null) and constructs it.
template <class Block, class... Args>
Block* make_block_on(worker_hot* w, Args&&... args) {
    static_assert(alignof(Block) <= cache_line_size);
    void* mem = allocate_task_block(w, sizeof(Block));
    try {
        return ::new (mem) Block(std::forward<Args>(args)...);
    } catch (...) {
        free_task_block(w, mem, sizeof(Block));
        throw;
    }
}

/// Allocates a block for Block from the calling worker's pool and constructs it.
template <class Block, class... Args>
Block* make_block(Args&&... args) {
    return make_block_on<Block>(current_worker_hot(), std::forward<Args>(args)...);
}

/// Makes `b` runnable: the worker's spawn queue when possible, else the policy.
template <class Block>
void spawn_block(worker_hot* w, Block* b) {
    try {
        if (!try_spawn_fast(w, b)) spawn(b);
    } catch (...) {
        destroy_block(b);
        throw;
    }
}

/// spawn_block, telling whether `b` already ran inside the spawn (work-first at a full
/// bounded queue, see worker_hot::ran_at_spawn). Then it has finished and reported to its
/// owner, and the caller may free its block at once instead of waiting for it.
template <class Block>
bool spawn_block_ran_at_once(worker_hot* w, Block* b) {
    spawn_block(w, b);
    // relaxed: our own worker's value unless the child suspended us (see worker_hot).
    if (w == nullptr || w->ran_at_spawn.load(std::memory_order_relaxed) != b) return false;
    w->ran_at_spawn.store(nullptr, std::memory_order_relaxed);
    return true;
}

/// A callable with its decayed arguments, invoked once.
template <class F, class... Args>
struct bound_call {
    std::decay_t<F> fn;
    std::tuple<std::decay_t<Args>...> args;

    template <class F2, class... A2>
    explicit bound_call(F2&& f, A2&&... a) : fn(std::forward<F2>(f)), args(std::forward<A2>(a)...) {}

    decltype(auto) operator()() {
        return std::apply([this](auto&... a) -> decltype(auto) { return std::invoke(std::move(fn), std::move(a)...); },
                          args);
    }
};

/// Applies optional task attributes to a descriptor.
inline void apply_attributes(task& t, const task_attributes& a) noexcept {
    t.prio = a.priority;
    t.name = a.name;
    if (a.worker != task_attributes::any_worker) {
        t.flags |= task_flag_pinned;
        t.last_worker = a.worker;
    }
    if (a.stack_size != 0) {
        // Checked against the runtime's size and the maximum at spawn (scheduler::spawn).
        const std::size_t kib = a.stack_size / 1024 + (a.stack_size % 1024 != 0 ? 1 : 0);
        t.flags |= task_flag_own_stack;
        t.stack_kib = kib > 0xffff'ffffu ? 0xffff'ffffu : static_cast<std::uint32_t>(kib);
    }
}

}  // namespace weft::detail
