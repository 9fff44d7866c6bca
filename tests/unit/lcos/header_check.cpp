// Compile-only check (tests/unit/lcos/CMakeLists.txt: lcos_header_check, never run):
// every lcos header, its templates instantiated, under weft's full warning set; the
// tests relax conversion warnings, but users' code may not.
#include <weft/lcos/lcos.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace weft {

template class counting_semaphore<>;
template class counting_semaphore<1>;
template class barrier<>;
template class channel<int>;
template class channel<std::string>;

namespace detail {

// The templated member functions, with the clocks and lock types users pass.
[[maybe_unused]] void instantiate_timed_and_lock_templates() {
    using namespace std::chrono_literals;
    const auto sys = std::chrono::system_clock::now();
    const auto steady = std::chrono::steady_clock::now();
    mutex m;
    (void)m.try_lock_for(1ms);
    (void)m.try_lock_until(sys);
    (void)m.try_lock_until(steady);
    recursive_mutex rm;
    (void)rm.try_lock_for(1.5ms);
    (void)rm.try_lock_until(sys);
    shared_mutex sm;
    (void)sm.try_lock_for(1s);
    (void)sm.try_lock_shared_until(sys);
    counting_semaphore<> s(0);
    (void)s.try_acquire_for(1ms);
    (void)s.try_acquire_until(sys);
    event e;
    (void)e.wait_for(1ms);
    (void)e.wait_until(sys);
    condition_variable cv;
    std::unique_lock lk(m);
    cv.wait(lk, [] { return true; });
    (void)cv.wait_for(lk, 1ms);
    (void)cv.wait_for(lk, 1ms, [] { return true; });
    (void)cv.wait_until(lk, sys);
    (void)cv.wait_until(lk, steady, [] { return true; });
    condition_variable_any cva;
    std::shared_lock slk(sm);
    cva.wait(slk, [] { return true; });
    (void)cva.wait_for(slk, 1ms);
    (void)cva.wait_until(lk, sys, [] { return true; });
    spinlock sl;
    std::unique_lock sll(sl);
    (void)cva.wait_for(sll, 1ms, [] { return true; });
    once_flag once;
    call_once(once, [](int) {}, 1);
    channel<int> ch;
    for (int v : ch) (void)v;
    // Move-only values (not instantiated as a class above: clang 14 would also
    // instantiate the copying overloads that their constraints exclude).
    channel<std::unique_ptr<int>> up(1);
    up.send(std::make_unique<int>(1));
    (void)up.try_send(std::make_unique<int>(2));
    (void)up.async_send(std::make_unique<int>(3));
    (void)up.receive();
    (void)up.try_receive();
    (void)up.async_receive();
    up.close();
    for (auto& p : up) (void)p;
}

}  // namespace detail
}  // namespace weft
