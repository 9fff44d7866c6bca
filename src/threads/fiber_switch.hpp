// The one place weft switches between stacks (src/threads/switch.cpp uses it): Boost.Context's fcontext primitives,
// wrapped with the ASan and TSan fiber annotations (DESIGN.md: without them the
// sanitizers report nonsense on every switch).
#pragma once

#include <weft/config/config.hpp>
#include <weft/platform/stack.hpp>
#include <weft/threads/detail/context.hpp>

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <cstdint>

#if WEFT_HAVE_ASAN
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     std::size_t* size_old);
void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
}
#endif
#if WEFT_HAVE_TSAN
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

namespace weft::detail {

namespace bctx = boost::context::detail;
using fcontext_t = bctx::fcontext_t;
using transfer_t = bctx::transfer_t;

#if WEFT_HAVE_TSAN
/// TSan fiber handles outlive the stacks they ran on (switch.cpp). Making one costs
/// milliseconds under TSan (__tsan_create_fiber clears and faults in its per-thread
/// state, about a mebibyte), and a runtime maps stacks again after every trim and every
/// restart: a test suite under TSan spent three quarters of its time there. An unmapped
/// stack's handle waits in a process-wide list, with `lives` (the task lives it has run),
/// for the next stack mapped; handles worn out by lives are destroyed instead.
void* take_tsan_fiber(std::uint32_t& lives) noexcept;
/// Gives a handle back to that list (or destroys it when worn out or the list is full).
void give_back_tsan_fiber(void* fiber, std::uint32_t lives) noexcept;
/// Lives after which a handle is replaced: TSan's per-fiber history grows with every
/// switch, and one handle reused for ~10^5 task lives crashes it.
inline constexpr std::uint32_t tsan_fiber_lives = 1024;
#endif

/// A new stack's identity: its bounds, and a TSan fiber if it has none yet (with the
/// lives that handle has run, into `lives`).
inline void init_fiber_for_stack(fiber_identity& f, const stack& s, [[maybe_unused]] std::uint32_t& lives) noexcept {
    f.bottom = s.bottom;
    f.size = s.size;
#if WEFT_HAVE_TSAN
    if (f.tsan_fiber == nullptr) f.tsan_fiber = take_tsan_fiber(lives);
#endif
}
/// Called before a stack starts a new life: frames abandoned on it (a stack left for
/// good by a switch, never unwound) leave ASan's redzone poison behind, which an
/// uninstrumented callee of the next life (libc writing a local through an ASan
/// interceptor) would trip over. Clears it.
inline void clear_stale_poison([[maybe_unused]] const fiber_identity& f) noexcept {
#if WEFT_HAVE_ASAN
    __asan_unpoison_memory_region(f.bottom, f.size);
#endif
}
inline void init_fiber_for_current_thread([[maybe_unused]] fiber_identity& f) noexcept {
#if WEFT_HAVE_TSAN
    f.tsan_fiber = __tsan_get_current_fiber();
#endif
}
/// A stack is unmapped, or its handle worn out (`lives`, see tsan_fiber_lives): the
/// TSan handle goes back to the list or is destroyed.
inline void release_fiber([[maybe_unused]] fiber_identity& f, [[maybe_unused]] std::uint32_t lives) noexcept {
#if WEFT_HAVE_TSAN
    if (f.tsan_fiber != nullptr) give_back_tsan_fiber(f.tsan_fiber, lives);
    f.tsan_fiber = nullptr;
#endif
}

/// Call right before switching from `from` to `to`; `from_dies` when the stack being
/// left will never be resumed (it is about to be recycled).
inline void before_switch([[maybe_unused]] fiber_identity* from, [[maybe_unused]] bool from_dies,
                          [[maybe_unused]] const fiber_identity& to) noexcept {
#if WEFT_HAVE_ASAN
    __sanitizer_start_switch_fiber(from_dies ? nullptr : &from->asan_fake_stack, to.bottom, to.size);
#endif
#if WEFT_HAVE_TSAN
    // flags 0: the switch synchronizes, as the hand-over through the switch does.
    __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
}

/// Call first thing on the stack that was switched to. Stores the bounds of the stack
/// that was left into `from` when it is the worker's own thread stack (first switch).
inline void after_switch([[maybe_unused]] fiber_identity& self,
                         [[maybe_unused]] fiber_identity* learn_from = nullptr) noexcept {
#if WEFT_HAVE_ASAN
    const void* old_bottom = nullptr;
    std::size_t old_size = 0;
    __sanitizer_finish_switch_fiber(self.asan_fake_stack, &old_bottom, &old_size);
    if (learn_from != nullptr) {
        learn_from->bottom = old_bottom;
        learn_from->size = old_size;
    }
#endif
}

}  // namespace weft::detail
