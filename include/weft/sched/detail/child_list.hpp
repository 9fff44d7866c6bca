// What weft::task_group and a weft::task_queue frame share about their children: the list
// of children spawned since the owner's last wait (run inline by that wait while untaken,
// freed by it once the rest have finished elsewhere), and the exceptions children threw.
#pragma once

#include <weft/sched/detail/task_block.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

namespace weft::detail {

/// The children an owner (a task_group, a task_queue frame) spawned since its last wait,
/// newest first, linked through `Child::prev`; `Child` is a task with `prev` and
/// `block_size` members. Owner only. Held by value in the owner: two words, no
/// indirection; each member function is small enough to inline into the owner's.
template <class Child>
struct child_list {
    Child* last = nullptr;      ///< newest child not taken back yet; older ones by prev
    std::uint64_t spawned = 0;  ///< children counted by the owner alone (see the owner)

    /// Spawns `b`, already linked (b->prev == last), a block of `size` bytes, counting it
    /// in `spawned`: the fast mode, in which a child that finishes elsewhere counts itself
    /// down on the owner's shared counter.
    void spawn(worker_hot* w, Child* b, std::size_t size) {
        // On failure b is destroyed and nothing counted.
        const bool ran = spawn_block_ran_at_once(w, b);
        ++spawned;
        if (ran) {
            // It finished inside the spawn (work-first) and reported to us already: wait()
            // has nothing to wait for or take back.
            free_task_block(w, b, size);
            return;
        }
        last = b;
    }

    /// Runs our untaken children inline, newest first, while each is still the newest
    /// task in this worker's queue; after each one, `ran(w, c)` with the worker we are on
    /// now (a child that frees its own block when run inline is gone by then). Stops at the
    /// first child that another worker took. Returns the worker we are on.
    template <class Ran>
    worker_hot* run_untaken(worker_hot* w, Ran&& ran) {
        while (Child* c = last) {
            Child* prev = c->prev;
            if (try_take_back_fast(w, c)) {
                c->flags = static_cast<std::uint8_t>(c->flags | task_flag_inline);
                w = execute_taken(w, c);
            } else if (try_run_inline(c, task_flag_inline)) {
                // The child may have suspended us: we may be on another worker now.
                w = current_worker_hot();
            } else {
                break;
            }
            ran(w, c);
            last = prev;
        }
        return w;
    }

    /// Frees the blocks of the children still listed, which ran elsewhere and have all
    /// finished, and empties the list. Children that ran elsewhere keep their blocks until
    /// here, so no address in our list can have been reused for another task while we
    /// compared it with a queue.
    void free_finished() noexcept {
        for (Child* c = std::exchange(last, nullptr); c != nullptr;) {
            Child* prev = c->prev;
            free_task_block(c, c->block_size);
            c = prev;
        }
    }
};

/// The exceptions an owner's children threw: a stack (newest first) that children push
/// onto without a lock and the owner takes once they have finished. None is dropped.
struct child_errors {
    struct node {
        std::exception_ptr error;
        node* next;
    };

    void capture(std::exception_ptr e) noexcept {
        node* n = nullptr;
        try {
            n = new node{std::move(e), nullptr};
        } catch (...) {
            // Out of memory while recording an error: nothing sane is left to do.
            terminate_on_unhandled_exception(nullptr);
        }
        // relaxed: the CAS below re-reads it.
        n->next = head.load(std::memory_order_relaxed);
        // release: publishes the node to the owner's wait, which acquires the list.
        while (!head.compare_exchange_weak(n->next, n, std::memory_order_release, std::memory_order_relaxed)) {
        }
    }

    /// The exceptions of `list`, as taken from `head`, in completion order; frees its nodes.
    static std::vector<std::exception_ptr> in_completion_order(node* list) {
        std::vector<std::exception_ptr> errors;
        while (list != nullptr) {  // newest first: restore completion order
            errors.insert(errors.begin(), std::move(list->error));
            delete std::exchange(list, list->next);
        }
        return errors;
    }

    std::atomic<node*> head{nullptr};
};

/// For an owner's destructor: runs `wait()`. If that rethrows a child's exception, it
/// terminates with a message naming the exception, or, when the destructor runs during
/// stack unwinding, prints `discarded` and the exception.
template <class Wait>
void wait_in_destructor(Wait&& wait, const char* discarded) noexcept {
    try {
        wait();
    } catch (...) {
        if (std::uncaught_exceptions() == 0) terminate_on_unhandled_exception(nullptr);
        // Already unwinding from another exception: a second one cannot propagate.
        report_discarded_exception(discarded);
    }
}

}  // namespace weft::detail
