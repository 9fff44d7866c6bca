// An owner-only deque of pointers: the xqueue policy's queue of new tasks, and the one a
// scheduler policy may offer the spawn fast path (ext::spawn_path::kind::owner).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace weft::ext {

/// @brief A growable ring of `T*` used by one thread only: the owner pushes and pops at
/// the back (newest) and may take from the front (oldest). Unlike work_stealing_deque,
/// no other thread ever takes from it, so no operation needs a fence or an atomic
/// read-modify-write: in seed 001's lock-less scheduler (digest 001 §4-5) a thief asks
/// the owner, who hands a task over itself. Growing is the only allocation; the ring
/// keeps its size afterwards.
///
/// size_approx() may be read from any thread (a relaxed statistic for the counters).
template <class T>
class owner_deque {
public:
    owner_deque() = default;
    owner_deque(const owner_deque&) = delete;
    owner_deque& operator=(const owner_deque&) = delete;

    /// @throws std::bad_alloc if the ring must grow and cannot.
    void push_back(T* t) {
        if (tail_ - head_ == cap_) grow();
        buf_[tail_++ & (cap_ - 1)] = t;
        publish_size();
    }
    /// The newest item, removed; nullptr if empty.
    T* pop_back() noexcept {
        if (tail_ == head_) return nullptr;
        T* t = buf_[--tail_ & (cap_ - 1)];
        publish_size();
        return t;
    }
    /// The oldest item, removed; nullptr if empty.
    T* pop_front() noexcept {
        if (tail_ == head_) return nullptr;
        T* t = buf_[head_++ & (cap_ - 1)];
        publish_size();
        return t;
    }
    /// The newest item, left in place; nullptr if empty.
    T* back() const noexcept { return tail_ == head_ ? nullptr : buf_[(tail_ - 1) & (cap_ - 1)]; }
    std::size_t size() const noexcept { return tail_ - head_; }
    bool empty() const noexcept { return tail_ == head_; }
    /// Any thread: the size at some recent moment.
    std::size_t size_approx() const noexcept {
        return size_.load(std::memory_order_relaxed);  // relaxed: a statistic, orders nothing
    }

private:
    void publish_size() noexcept {
        size_.store(tail_ - head_, std::memory_order_relaxed);  // relaxed: a statistic for the counters
    }
    void grow() {
        const std::size_t cap = cap_ == 0 ? 64 : cap_ * 2;
        auto buf = std::make_unique<T*[]>(cap);
        for (std::size_t i = head_; i != tail_; ++i) buf[i & (cap - 1)] = buf_[i & (cap_ - 1)];
        buf_ = std::move(buf);
        cap_ = cap;
    }
    std::unique_ptr<T*[]> buf_;
    std::size_t cap_ = 0, head_ = 0, tail_ = 0;
    std::atomic<std::size_t> size_{0};
};

}  // namespace weft::ext
