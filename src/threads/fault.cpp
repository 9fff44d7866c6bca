// Faults in tasks: a SIGSEGV in the guard region of the running task's stack is a stack
// overflow and says so; any other SIGSEGV or SIGBUS inside a task names the task, then
// takes its usual course (the previous handler: a sanitizer's, or the default). Only
// async-signal-safe calls here (write(2), no allocation).
#include <weft/threads/detail/context.hpp>

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace weft::detail {
namespace {

struct sigaction g_previous_segv {};

void write_str(const char* s) noexcept {
    const std::size_t n = std::strlen(s);
    [[maybe_unused]] auto r = ::write(STDERR_FILENO, s, n);
}

void write_u64(std::uint64_t v) noexcept {
    char buf[24];
    char* p = buf + sizeof buf;
    *--p = '\0';
    do {
        *--p = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    write_str(p);
}

void write_hex(std::uintptr_t v) noexcept {
    char buf[2 + 16 + 1];
    char* p = buf + sizeof buf;
    *--p = '\0';
    do {
        *--p = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    *--p = 'x';
    *--p = '0';
    write_str(p);
}

void write_task(const task* t) noexcept {
    if (t != nullptr && t->name != nullptr) {
        write_str("'");
        write_str(t->name);
        write_str("'");
    } else {
        write_str("#");
        write_u64(t != nullptr ? t->id : 0);
    }
}

// The stack pointer at the fault, or 0 where we do not know how to read it.
std::uintptr_t fault_stack_pointer(void* uctx) noexcept {
#if defined(__x86_64__)
    return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(uctx)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(uctx)->uc_mcontext.sp);
#else
    (void)uctx;
    return 0;
#endif
}

struct sigaction g_previous_bus {};

std::atomic<fault_probe> g_probe{nullptr};

void fault_handler(int sig, siginfo_t* info, void* uctx) {
    const stack* running = nullptr;
    const task* t = nullptr;
    // relaxed: stored before the first worker thread started (its creation orders it).
    if (const fault_probe probe = g_probe.load(std::memory_order_relaxed)) probe(&running, &t);
    if (running != nullptr) {
        const stack& stk = *running;
        // An overflow: the fault is in the guard region (or just below it: a frame larger
        // than the region), or the stack pointer itself has left the stack downwards.
        const std::uintptr_t sp = fault_stack_pointer(uctx);
        const bool sp_below = sp != 0 && sp < reinterpret_cast<std::uintptr_t>(stk.bottom) &&
                              sp + stack_guard_size * 4 >= reinterpret_cast<std::uintptr_t>(stk.mapping);
        if (sig == SIGSEGV && (stk.guard_contains(info->si_addr, 64 * 1024) || sp_below)) {
            write_str("weft: stack overflow in task ");
            write_task(t);
            write_str(" (stack size ");
            write_u64(stk.size);
            // weft::run's first task is named "main" (its stack: --weft:main-stack-size).
            const bool main_task = t != nullptr && t->name != nullptr && std::strcmp(t->name, "main") == 0;
            write_str(main_task ? " bytes); raise --weft:main-stack-size\n"
                      : t != nullptr && (t->flags & task_flag_own_stack) != 0
                          ? " bytes); raise its task_attributes::stack_size\n"
                          : " bytes); raise --weft:stack-size\n");
            std::abort();
        }
        if (t != nullptr) {
            // Not an overflow, but the user will want to know which task faulted.
            write_str(sig == SIGSEGV ? "weft: SIGSEGV (invalid memory access at " : "weft: SIGBUS (bus error at ");
            write_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
            write_str(") in task ");
            write_task(t);
            write_str("\n");
        }
    }
    // Hand the fault on to whoever handled it before us (a sanitizer, or the default).
    const struct sigaction& previous = sig == SIGSEGV ? g_previous_segv : g_previous_bus;
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction != nullptr) {
            previous.sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    ::signal(sig, SIG_DFL);  // the faulting instruction re-runs and the default action applies
}

}  // namespace

void install_fault_handler(fault_probe probe) {
    static std::once_flag once;
    std::call_once(once, [probe] {
        g_probe.store(probe, std::memory_order_relaxed);  // relaxed: see fault_handler
        struct sigaction sa {};
        sa.sa_sigaction = fault_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        ::sigaction(SIGSEGV, &sa, &g_previous_segv);
        ::sigaction(SIGBUS, &sa, &g_previous_bus);
    });
}

alt_signal_stack::alt_signal_stack() : stk_(allocate_stack(64 * 1024)) {
    stack_t ss{};
    ss.ss_sp = stk_.bottom;
    ss.ss_size = stk_.size;
    auto* old = new stack_t{};
    ::sigaltstack(&ss, old);
    old_ = old;
}

alt_signal_stack::~alt_signal_stack() {
    auto* old = static_cast<stack_t*>(old_);
    ::sigaltstack(old, nullptr);
    delete old;
    deallocate_stack(stk_);
}

}  // namespace weft::detail
