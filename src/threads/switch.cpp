// The switch between two contexts (seed 000 §2.3.1): Boost.Context's fcontext primitives,
// one landing function run on the arrival side, the sanitizer annotations
// (fiber_switch.hpp) and the C++ exception state that travels with a suspended stack.
#include "fiber_switch.hpp"

#include <weft/threads/detail/context.hpp>

#include <cxxabi.h>

#include <cstdlib>

namespace weft::detail {
namespace {

// The per-thread exception-handling state of the Itanium C++ ABI (what
// abi::__cxa_get_globals() returns): exceptions caught and being handled, and the count
// of exceptions thrown and not yet caught.
struct eh_globals {
    void* caught_exceptions;
    unsigned int uncaught_exceptions;
};
// Called through a volatile pointer: the declaration is __attribute__((const)), and a
// context may continue on another thread between two calls, so no call may be reused.
auto* volatile g_get_eh_globals = &abi::__cxa_get_globals;
eh_globals* current_eh_globals() noexcept { return reinterpret_cast<eh_globals*>(g_get_eh_globals()); }

// A switch in flight. It lives on the stack being left, so the landing copies it first:
// once the landing publishes `from`, another thread may continue it (and unwind it).
struct hop {
    context* from;
    context* to;
    landing_fn landing;
    void* arg;
    bool from_dies;    // `from` is left for good: its state is not saved
    bool from_thread;  // `from` is a thread's own stack, entered for the first time
};

// The context a landing arrived on, for a fresh context's trampoline: Boost.Context passes
// a landing's return value to the code that was suspended, not to a fresh context's
// entry, which receives whatever the argument registers hold. Read right after the
// landing, on the same thread.
thread_local context* tl_arrived = nullptr;

transfer_t on_landing(transfer_t tr) noexcept {
    const hop h = *static_cast<const hop*>(tr.data);
    after_switch(h.to->fiber, h.from_thread ? &h.from->fiber : nullptr);
    if (!h.from_dies) h.from->fctx = tr.fctx;
    tl_arrived = h.to;
    if (h.landing != nullptr) h.landing(h.from, h.arg);
    return {nullptr, nullptr};
}

[[noreturn]] void trampoline(transfer_t) noexcept {
    tl_arrived->entry();
    std::abort();  // unreachable: an entry leaves its context, it never returns
}

void jump(hop& h) noexcept {
    before_switch(&h.from->fiber, h.from_dies, h.to->fiber);
    bctx::ontop_fcontext(static_cast<fcontext_t>(h.to->fctx), &h, on_landing);
}

}  // namespace

void switch_context(context* from, context* to, landing_fn landing, void* arg) noexcept {
    hop h{from, to, landing, arg, false, false};
    // The C++ runtime keeps the exceptions being thrown and caught per OS thread. Code
    // that suspends inside a catch block or while unwinding (a task_group's destructor,
    // say) may continue on another thread: its exception state must travel with it,
    // and this thread must go on with a clean one.
    eh_globals* const before = current_eh_globals();
    const eh_globals saved = *before;
    *before = eh_globals{};
    jump(h);
    *current_eh_globals() = saved;
}

void leave_context(context* from, context* to, landing_fn landing, void* arg) noexcept {
    hop h{from, to, landing, arg, true, false};
    jump(h);
    __builtin_unreachable();
}

void enter_from_thread(context* thread_ctx, context* first, landing_fn landing, void* arg) noexcept {
    init_fiber_for_current_thread(thread_ctx->fiber);
    hop h{thread_ctx, first, landing, arg, false, true};
    jump(h);
}

void prepare_context(context* c, context_entry entry) noexcept {
    // Under TSan a recycled stack gets a new fiber handle now and then: TSan's per-fiber
    // history grows with every switch, and one handle reused for ~10^5 task lives
    // crashes it; a new handle per life costs a system call each. Without TSan the
    // fiber identity only holds the stack bounds, which do not change.
    if (WEFT_HAVE_TSAN && ++c->lives % 1024 == 0) {
        release_fiber(c->fiber);
        init_fiber_for_stack(c->fiber, c->stk);
    }
    c->fiber.asan_fake_stack = nullptr;
    clear_stale_poison(c->fiber);
    c->entry = entry;
    c->fctx = bctx::make_fcontext(c->stk.top(), c->stk.size, trampoline);
}

}  // namespace weft::detail
