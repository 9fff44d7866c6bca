// Execution contexts: a stack, the machine state saved on it while it does not run, and
// the switch from one to another (seed 000 §2.3.1: a suspended task keeps its stack).
// The threads layer owns stacks, switching and their recycling (context_pool.hpp); the
// scheduler decides what runs where. Implemented in src/threads/ (Boost.Context's
// fcontext, annotated for ASan and TSan); nothing of Boost shows here.
#pragma once

#include <weft/platform/stack.hpp>
#include <weft/threads/detail/wait_reason.hpp>
#include <weft/threads/task.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

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

/// An execution stack: a task stack from a context_pool (context_pool.hpp), or a
/// thread's own stack.
struct context {
    void* fctx = nullptr;  ///< the saved machine state while it does not run
    stack stk;
    fiber_identity fiber;
    context_entry entry = nullptr;  ///< see prepare_context
    /// While pooled (not in use): the next context of its batch. Beside the fields a
    /// reuse writes anyway, so that a cache's take and put touch no other line.
    context* pool_next = nullptr;
    /// The task suspended on this stack, or null. release/acquire: publishes the three
    /// fields below (written by the suspending worker) to the deadlock report.
    std::atomic<task*> suspended_task{nullptr};
    std::uint64_t suspended_id = 0;        ///< its task::id
    const char* suspended_name = nullptr;  ///< its task::name
    wait_reason waiting;                   ///< what it waits on
    context* registry_prev = nullptr;  ///< the pool's list of every mapped context
    context* registry_next = nullptr;
    std::uint32_t lives = 0;  ///< starts since its TSan fiber was made
    // On the first context of a batch while the batch is in the runtime-wide level of the
    // pool (context_pool.hpp): its neighbours in the pool's list, its length and when it
    // arrived. Touched only when a whole batch moves.
    context* batch_newer = nullptr;
    context* batch_older = nullptr;
    std::uint32_t batch_size = 0;
    std::uint64_t batch_epoch = 0;  ///< the pool's trim epoch at arrival
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
