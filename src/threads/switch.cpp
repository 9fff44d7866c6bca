// The switch between two contexts (seed 000 §2.3.1): Boost.Context's fcontext primitives,
// one landing function run on the arrival side, the sanitizer annotations
// (fiber_switch.hpp) and the C++ exception state that travels with a suspended stack.
#include "fiber_switch.hpp"

#include <weft/threads/detail/context.hpp>

#include <cxxabi.h>

#include <cstdlib>
#if WEFT_HAVE_TSAN
#include <mutex>
#include <vector>
#endif

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

#if WEFT_HAVE_TSAN
namespace {

// Handles kept at most: each holds TSan's state for a thread, about a mebibyte.
constexpr std::size_t tsan_fibers_kept = 1024;

struct tsan_fiber_list {
    tsan_fiber_list() { idle.reserve(tsan_fibers_kept); }  // so that giving back never allocates
    std::mutex mutex;
    struct entry {
        void* fiber;
        std::uint32_t lives;
    };
    std::vector<entry> idle;
};

tsan_fiber_list& tsan_fibers() noexcept {
    static tsan_fiber_list* list = new tsan_fiber_list;  // never destroyed: used until exit
    return *list;
}

}  // namespace

void* take_tsan_fiber(std::uint32_t& lives) noexcept {
    tsan_fiber_list& l = tsan_fibers();
    {
        std::lock_guard lock(l.mutex);
        if (!l.idle.empty()) {
            const tsan_fiber_list::entry e = l.idle.back();
            l.idle.pop_back();
            lives = e.lives;
            return e.fiber;
        }
    }
    lives = 0;
    return __tsan_create_fiber(0);
}

void give_back_tsan_fiber(void* fiber, std::uint32_t lives) noexcept {
    if (lives < tsan_fiber_lives) {
        tsan_fiber_list& l = tsan_fibers();
        std::lock_guard lock(l.mutex);
        if (l.idle.size() < tsan_fibers_kept) {
            l.idle.push_back({fiber, lives});
            return;
        }
    }
    __tsan_destroy_fiber(fiber);
}
#endif

void prepare_context(context* c, context_entry entry) noexcept {
    // Under TSan a recycled stack gets a new fiber handle now and then (see
    // tsan_fiber_lives). Without TSan the fiber identity only holds the stack bounds,
    // which do not change.
#if WEFT_HAVE_TSAN
    if (++c->lives >= tsan_fiber_lives) {
        release_fiber(c->fiber, c->lives);
        init_fiber_for_stack(c->fiber, c->stk, c->lives);
    }
#endif
    c->fiber.asan_fake_stack = nullptr;
    clear_stale_poison(c->fiber);
    c->entry = entry;
    c->fctx = bctx::make_fcontext(c->stk.top(), c->stk.size, trampoline);
}

}  // namespace weft::detail
