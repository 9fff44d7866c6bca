// The entry gate for threads outside the runtime, the active scheduler, and the calling
// thread's worker (see entry.hpp).
#include "entry.hpp"

#include <weft/config/errors.hpp>

#include <pthread.h>

#include <mutex>
#include <string>
#include <thread>

namespace weft::detail {

thread_local worker* tl_worker __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<scheduler*> g_active{nullptr};
std::atomic<std::uint64_t> g_entry{entry_closed | entry_gone};

namespace {
// Set in the child of a fork() taken while a runtime ran: its workers do not exist there.
std::atomic<bool> g_forked_child{false};
}  // namespace

void close_entry_bits(std::uint64_t bits) noexcept {
    g_entry.fetch_or(bits);
    while ((g_entry.load() & entry_count) != 0) std::this_thread::yield();
}

void open_entry() noexcept { g_entry.fetch_and(~(entry_closed | entry_gone)); }

void forget_runtime_in_forked_children() {
    static std::once_flag atfork_once;
    std::call_once(atfork_once, [] {
        ::pthread_atfork(nullptr, nullptr, [] {
            // The child has one thread, the one that forked: the workers are gone. Close
            // the entry and forget the runtime (its memory is the parent's business), so
            // that spawning here throws instead of queueing work nobody will run.
            g_entry.store(entry_closed | entry_gone);
            g_active.store(nullptr);
            g_forked_child.store(true);
            tl_worker = nullptr;
        });
    });
}


void throw_no_runtime(const char* what) {
    if (g_forked_child.load(std::memory_order_relaxed))  // relaxed: set once, in a one-thread child
        throw runtime_state_error(std::string("weft: ") + what +
                                  ": this process is the child of a fork() taken while a weft runtime ran, and that "
                                  "runtime's workers do not exist here; start a new weft::runtime in the child "
                                  "(after the parent's has stopped) or exec");
    if (g_active.load(std::memory_order_acquire) != nullptr)  // acquire: pairs with start()'s exchange
        throw runtime_state_error(std::string("weft: ") + what + ": the runtime is stopping");
    throw runtime_state_error(std::string("weft: ") + what +
                              ": no runtime is running; start one with weft::run() or a weft::runtime object");
}

void throw_called_from_task(const char* what) {
    throw runtime_state_error(std::string("weft: ") + what +
                              " was called from inside a task: it waits for every task, its caller included, "
                              "so it would never return; call it from the thread that owns the weft::runtime");
}

worker* current_worker() noexcept {
    // The empty asm keeps the compiler from treating this function as pure and from
    // reusing a TLS address computed before a context switch.
    asm volatile("" ::: "memory");
    return tl_worker;
}

worker_hot* current_worker_hot() noexcept {
    asm volatile("" ::: "memory");  // as in current_worker()
    return tl_worker;
}

}  // namespace weft::detail
