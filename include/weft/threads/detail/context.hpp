// Execution contexts: a stack, the machine state saved on it while it does not run, and
// the switch from one to another (seed 000 §2.3.1: a suspended task keeps its stack).
// The threads layer owns stacks, switching and their recycling; the scheduler decides
// what runs where. Implemented in src/threads/ (Boost.Context's fcontext, annotated for
// ASan and TSan); nothing of Boost shows here.
#pragma once

#include <weft/platform/stack.hpp>
#include <weft/threads/detail/wait_reason.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace weft::detail {

/// What a sanitizer needs to know about one execution stack (src/threads/fiber_switch.hpp).
struct fiber_identity {
    const void* bottom = nullptr;  ///< lowest usable address (ASan)
    std::size_t size = 0;
    void* tsan_fiber = nullptr;    ///< TSan's handle for this stack
    void* asan_fake_stack = nullptr;
};

/// What a fresh context runs from the top of its stack. It never returns: it ends by
/// leaving its context (leave_context).
using context_entry = void (*)() noexcept;

/// An execution stack: a task stack from a context_pool, or a thread's own stack.
struct context {
    void* fctx = nullptr;  ///< the saved machine state while it does not run
    stack stk;
    fiber_identity fiber;
    context_entry entry = nullptr;  ///< see prepare_context
    /// The task suspended on this stack, or null. release/acquire: publishes the three
    /// fields below (written by the suspending worker) to the deadlock report.
    std::atomic<task*> suspended_task{nullptr};
    std::uint64_t suspended_id = 0;        ///< its task::id
    const char* suspended_name = nullptr;  ///< its task::name
    wait_reason waiting;                   ///< what it waits on
    context* registry_prev = nullptr;
    context* registry_next = nullptr;
    std::uint32_t lives = 0;  ///< starts since its TSan fiber was made
};

/// Runs first on the context switched to, before it goes on: `left` is the context
/// that was left (saved, unless it was left for good), `arg` the switcher's.
using landing_fn = void (*)(context* left, void* arg) noexcept;

/// Saves the running state into `from`, switches to `to` and runs landing(from, arg)
/// there first; returns once something switches back to `from`, possibly on another OS
/// thread. The C++ exception state (exceptions being handled or in flight) goes with
/// `from`, and `to` continues with its own: code may suspend inside a catch block.
void switch_context(context* from, context* to, landing_fn landing, void* arg) noexcept;

/// Switches to `to` and never comes back to `from` (the landing may recycle it).
[[noreturn]] void leave_context(context* from, context* to, landing_fn landing, void* arg) noexcept;

/// On a thread's own stack: makes `thread_ctx` that stack (the TSan fiber of the thread,
/// and for ASan its bounds, learned at the switch) and switches to `first`; returns
/// when a context leaves for `thread_ctx`.
void enter_from_thread(context* thread_ctx, context* first, landing_fn landing, void* arg) noexcept;

/// Makes `c` start `entry` from the top of its stack the next time it is switched to.
/// A recycled stack starts a new life here: what earlier lives left on it is forgotten.
void prepare_context(context* c, context_entry entry) noexcept;

/// Every task stack of one runtime: mapped, counted, listed (the deadlock report walks
/// the list for suspended tasks) and unmapped. Thread-safe.
class context_pool {
public:
    context_pool() = default;
    ~context_pool();  ///< unmaps every context still listed
    context_pool(const context_pool&) = delete;
    context_pool& operator=(const context_pool&) = delete;

    /// A new context with a stack of `bytes` usable bytes (rounded to pages).
    /// @throws std::system_error when the stack cannot be mapped (the message says why).
    context* make(std::size_t bytes);
    /// Unmaps `c` and forgets it.
    void release(context* c) noexcept;
    /// Contexts mapped now, and their usable stack bytes.
    std::size_t count() const;
    std::size_t stack_bytes() const;
    /// Calls f(const context&) for each context, under the pool's lock.
    template <class F>
    void for_each(F&& f) const {
        std::lock_guard lock(mutex_);
        for (const context* c = head_; c != nullptr; c = c->registry_next) f(*c);
    }

private:
    mutable std::mutex mutex_;
    context* head_ = nullptr;
    std::size_t count_ = 0;
    std::size_t bytes_ = 0;
};

/// One worker's recycled contexts of its pool's usual stack size (owner only), so that
/// a suspension costs no mapping in the common case.
class context_cache {
public:
    static constexpr std::size_t keep = 64;
    /// A cached context, or null.
    context* take() noexcept {
        if (cached_.empty()) return nullptr;
        context* c = cached_.back();
        cached_.pop_back();
        count_.store(cached_.size(), std::memory_order_relaxed);  // relaxed: a statistic
        return c;
    }
    /// Keeps `c` if there is room; false if the caller must release it.
    bool put(context* c) noexcept {
        if (cached_.size() >= keep) return false;
        try {
            cached_.push_back(c);
        } catch (...) {
            return false;
        }
        count_.store(cached_.size(), std::memory_order_relaxed);  // relaxed: a statistic
        return true;
    }
    /// Releases every cached context to `pool`.
    void drain(context_pool& pool) noexcept {
        for (context* c : cached_) pool.release(c);
        cached_.clear();
        count_.store(0, std::memory_order_relaxed);  // relaxed: a statistic
    }
    /// Contexts cached now (any thread, approximate).
    std::size_t size() const noexcept { return count_.load(std::memory_order_relaxed); }  // relaxed: a statistic

private:
    std::vector<context*> cached_;
    std::atomic<std::size_t> count_{0};
};

/// Says, from inside a SIGSEGV/SIGBUS handler, what the faulting thread runs: its current
/// stack (null: none of ours) and task. Must be async-signal-safe (read thread-locals).
using fault_probe = void (*)(const stack** stk, const task** t) noexcept;

/// Installs, once per process, the handler that reports a fault in a task: a SIGSEGV in
/// the guard region of the running stack is a stack overflow and says so (then aborts);
/// any other SIGSEGV or SIGBUS inside a task names the task, then takes its usual course
/// (the previous handler: a sanitizer's, or the default).
void install_fault_handler(fault_probe probe);

/// An alternate signal stack for the calling thread while it lives, so that a stack
/// overflow can still be reported.
class alt_signal_stack {
public:
    alt_signal_stack();
    ~alt_signal_stack();
    alt_signal_stack(const alt_signal_stack&) = delete;
    alt_signal_stack& operator=(const alt_signal_stack&) = delete;

private:
    stack stk_;
    void* old_ = nullptr;  ///< the stack_t that was installed before
};

}  // namespace weft::detail
