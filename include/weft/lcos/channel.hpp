// weft::channel<T>: a FIFO of values between tasks, bounded or unbounded, whose send and
// receive suspend the task (never its worker), with future-returning variants and close.
#pragma once

#include <weft/concurrency/backoff_spinlock.hpp>
#include <weft/config/errors.hpp>
#include <weft/futures/future.hpp>
#include <weft/lcos/detail/wait_queue.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace weft {

/// @brief Thrown by a send on a closed channel, and by a receive on a closed channel
/// that has no values left; stored in the futures of async operations that close ends.
class channel_closed : public error {
public:
    channel_closed() : error("weft::channel: the channel is closed") {}
};

/// @brief A multi-producer, multi-consumer FIFO channel between tasks.
///
/// Unbounded by default; `channel<T>(n)` holds at most n > 0 values, and send() on a full
/// bounded channel suspends the calling task until a receiver makes room. receive() on an
/// empty channel suspends until a value arrives. Suspending never blocks the worker; on a
/// thread that is not a weft worker these calls block the thread. async_send() and
/// async_receive() never wait: they return futures that complete when the operation
/// does. Waiting senders and receivers are served in FIFO order; a value sent to a
/// waiting receiver goes straight to it.
///
/// close() ends the channel: later sends throw channel_closed (async_send's future holds
/// it), as do the sends still waiting for room; receivers first drain the values already
/// in the channel, then receive() throws channel_closed and try_receive() returns
/// nullopt; receivers waiting on an empty channel (and their futures) get
/// channel_closed. close() is idempotent; destroying a channel closes it (no task may be
/// waiting in send() or receive() then, but futures may be pending).
///
/// A range-for over a channel receives values until it is closed and drained.
/// T must be nothrow-move-constructible: values are moved under an internal lock.
///
/// Example (from tests/unit/lcos/channel_test.cpp):
/// @code
/// weft::channel<int> ch(2);  // bounded: at most 2 values in flight
/// auto producer = weft::async([&] {
///     for (int i = 1; i <= 10; ++i) ch.send(i);  // suspends while the channel is full
///     ch.close();
/// });
/// int sum = 0;
/// for (int v : ch) sum += v;  // ends once closed and drained
/// producer.get();
/// EXPECT_EQ(sum, 55);
/// @endcode
template <class T>
class channel {
    static_assert(std::is_nothrow_move_constructible_v<T> && std::is_nothrow_destructible_v<T>,
                  "weft::channel<T> moves values under a lock: T must be nothrow-move-constructible");

public:
    class iterator;

    /// @brief An unbounded channel.
    channel() = default;
    /// @brief A channel that holds at most `capacity` values. @throws std::invalid_argument
    /// if capacity is 0.
    explicit channel(std::size_t capacity) : capacity_(capacity) {
        if (capacity == 0) throw std::invalid_argument("weft::channel: a bounded channel needs a capacity > 0");
    }
    channel(const channel&) = delete;
    channel& operator=(const channel&) = delete;
    /// @brief close(): pending futures complete with channel_closed.
    ~channel() { close(); }

    /// @brief Sends a copy of `v`; suspends while a bounded channel is full.
    /// @throws channel_closed if the channel is (or gets) closed before `v` is accepted.
    void send(const T& v)
        requires std::is_copy_constructible_v<T>
    {
        send(T(v));
    }
    /// @brief Sends `v`; suspends while a bounded channel is full.
    /// @throws channel_closed if the channel is (or gets) closed before `v` is accepted.
    void send(T&& v) {
        std::optional<detail::wait_node> node;
        detail::wait_node* receiver = nullptr;
        bool closed = false;
        {
            std::lock_guard g(lock_);
            if (closed_) {
                closed = true;
            } else if (!offer_locked(v, receiver)) {
                node.emplace();
                node->slot = std::addressof(v);
                node->reason = {detail::wait_kind::channel, this, 0};
                senders_.push_back(*node);
            }
        }
        if (closed) throw channel_closed();
        if (receiver != nullptr) receiver->wake();
        if (node) {
            (void)node->block();  // a receiver took `v`, or close() refused it
            if (node->outcome == closed_outcome) throw channel_closed();
        }
    }

    /// @brief Sends a copy of `v` if that needs no waiting. @return false if the channel
    /// is full. @throws channel_closed if it is closed.
    bool try_send(const T& v)
        requires std::is_copy_constructible_v<T>
    {
        T copy(v);
        return try_send(std::move(copy));
    }
    /// @brief Sends `v` if that needs no waiting (`v` is left alone otherwise).
    /// @return false if the channel is full. @throws channel_closed if it is closed.
    bool try_send(T&& v) {
        detail::wait_node* receiver = nullptr;
        bool closed = false, sent = false;
        {
            std::lock_guard g(lock_);
            closed = closed_;
            if (!closed) sent = offer_locked(v, receiver);
        }
        if (closed) throw channel_closed();
        if (receiver != nullptr) receiver->wake();
        return sent;
    }

    /// @brief Sends `v` without waiting: the future completes once the channel accepts
    /// it, or with channel_closed if it is closed first.
    future<void> async_send(T v) {
        auto op = std::make_unique<async_sender>(std::move(v));
        future<void> f = op->done.get_future();
        detail::wait_node* receiver = nullptr;
        bool closed = false, queued = false;
        {
            std::lock_guard g(lock_);
            if (closed_) {
                closed = true;
            } else if (!offer_locked(op->value, receiver)) {
                senders_.push_back(*op);
                queued = true;
            }
        }
        if (receiver != nullptr) receiver->wake();
        if (queued) {
            (void)op.release();  // the queue owns it now; it deletes itself when completed
        } else if (closed) {
            op->done.set_exception(std::make_exception_ptr(channel_closed()));
        } else {
            op->done.set_value();
        }
        return f;
    }

    /// @brief Receives the oldest value, suspending while the channel is empty.
    /// @throws channel_closed once the channel is closed and drained.
    T receive() {
        std::optional<T> v = receive_or_closed();
        if (!v) throw channel_closed();
        return std::move(*v);
    }

    /// @brief Receives the oldest value if one is there. @return nullopt if the channel is
    /// empty (closed or not).
    std::optional<T> try_receive() {
        std::optional<T> v;
        detail::wait_node* sender = nullptr;
        {
            std::lock_guard g(lock_);
            if (!buffer_.empty()) take_locked(v, sender);
        }
        if (sender != nullptr) sender->wake();
        return v;
    }

    /// @brief Receives without waiting: the future completes with the next value, or
    /// with channel_closed if the channel is closed and drained first.
    future<T> async_receive() {
        auto op = std::make_unique<async_receiver>();
        future<T> f = op->done.get_future();
        detail::wait_node* sender = nullptr;
        bool closed = false, queued = false;
        {
            std::lock_guard g(lock_);
            if (!buffer_.empty()) {
                take_locked(op->value, sender);
            } else if (closed_) {
                closed = true;
            } else {
                receivers_.push_back(*op);
                queued = true;
            }
        }
        if (sender != nullptr) sender->wake();
        if (queued) {
            (void)op.release();  // the queue owns it now; it deletes itself when completed
        } else if (closed) {
            op->done.set_exception(std::make_exception_ptr(channel_closed()));
        } else {
            op->done.set_value(std::move(*op->value));
        }
        return f;
    }

    /// @brief Closes the channel (idempotent): no more sends; waiting senders and the
    /// receivers waiting on an empty channel resume with channel_closed.
    void close() noexcept {
        const std::exception_ptr error = std::make_exception_ptr(channel_closed());
        detail::wake_list woken;
        std::lock_guard g(lock_);
        if (closed_) return;
        closed_ = true;
        for (detail::wait_queue* q : {&receivers_, &senders_}) {
            while (detail::wait_node* n = q->pop_claimed()) {
                n->outcome = closed_outcome;
                if (n->tag == async_tag) static_cast<async_op*>(n)->error = error;
                woken.push(*n);
            }
        }
    }

    /// @brief True once close() has been called.
    bool is_closed() const noexcept {
        std::lock_guard g(lock_);
        return closed_;
    }

    /// @brief Receives the first value for a range-for (suspending as receive() does).
    iterator begin() { return iterator(this); }
    /// @brief The end of a range-for: the channel is closed and drained.
    std::default_sentinel_t end() const noexcept { return {}; }

    /// @brief An input iterator that receives a value on each increment.
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = T*;
        using reference = T&;

        iterator() = default;
        T& operator*() const { return *value_; }
        T* operator->() const { return std::addressof(*value_); }
        iterator& operator++() {
            next();
            return *this;
        }
        void operator++(int) { next(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept { return !it.value_; }

    private:
        friend class channel;
        explicit iterator(channel* ch) : ch_(ch) { next(); }
        void next() {
            value_.reset();
            if (std::optional<T> v = ch_->receive_or_closed()) value_.emplace(std::move(*v));
        }

        channel* ch_ = nullptr;
        mutable std::optional<T> value_;
    };

private:
    static constexpr std::uint8_t closed_outcome = 1;
    static constexpr std::uintptr_t async_tag = 1;

    /// A pending async operation: a queued node that completes its promise when woken.
    struct async_op : detail::wait_node {
        explicit async_op(wake_fn complete) noexcept : wait_node(complete) { tag = async_tag; }
        std::exception_ptr error;
    };
    struct async_sender final : async_op {
        explicit async_sender(T v) : async_op(&complete), value(std::move(v)) { this->slot = std::addressof(value); }
        static void complete(detail::wait_node& n) noexcept {
            auto* self = static_cast<async_sender*>(&n);
            if (self->outcome == closed_outcome) {
                self->done.set_exception(self->error);
            } else {
                self->done.set_value();
            }
            delete self;
        }
        T value;
        promise<void> done;
    };
    struct async_receiver final : async_op {
        async_receiver() : async_op(&complete) { this->slot = std::addressof(value); }
        static void complete(detail::wait_node& n) noexcept {
            auto* self = static_cast<async_receiver*>(&n);
            if (self->outcome == closed_outcome) {
                self->done.set_exception(self->error);
            } else {
                self->done.set_value(std::move(*self->value));
            }
            delete self;
        }
        std::optional<T> value;
        promise<T> done;
    };

    bool has_room() const noexcept { return capacity_ == 0 || buffer_.size() < capacity_; }

    /// Under lock_, on an open channel: gives `v` to the oldest waiting receiver (set in
    /// `receiver`, to wake after unlocking) or to the buffer; false if it is full.
    /// @throws std::bad_alloc from the buffer, with nothing changed.
    bool offer_locked(T& v, detail::wait_node*& receiver) {
        if (detail::wait_node* r = receivers_.pop_claimed()) {
            static_cast<std::optional<T>*>(r->slot)->emplace(std::move(v));
            receiver = r;
            return true;
        }
        if (!has_room()) return false;
        buffer_.push_back(std::move(v));
        return true;
    }

    /// Under lock_, on a non-empty buffer: moves the oldest value to `out`, and the oldest
    /// waiting sender's value into the room this makes (that sender is set in `sender`).
    /// @throws std::bad_alloc from the buffer, with nothing changed.
    void take_locked(std::optional<T>& out, detail::wait_node*& sender) {
        if (detail::wait_node* s = senders_.front()) {
            buffer_.push_back(std::move(*static_cast<T*>(s->slot)));
            senders_.remove(*s);
            const bool claimed = s->try_claim();  // senders never time out
            WEFT_ASSERT(claimed);
            sender = s;
        }
        out.emplace(std::move(buffer_.front()));
        buffer_.pop_front();
    }

    /// receive(), returning nullopt instead of throwing once closed and drained.
    std::optional<T> receive_or_closed() {
        std::optional<T> v;
        std::optional<detail::wait_node> node;
        detail::wait_node* sender = nullptr;
        {
            std::lock_guard g(lock_);
            if (!buffer_.empty()) {
                take_locked(v, sender);
            } else if (!closed_) {
                node.emplace();
                node->slot = std::addressof(v);
                node->reason = {detail::wait_kind::channel, this, 0};
                receivers_.push_back(*node);
            }
        }
        if (sender != nullptr) sender->wake();
        if (node) {
            (void)node->block();
            if (node->outcome == closed_outcome) v.reset();
        }
        return v;
    }

    mutable ext::backoff_spinlock lock_;  ///< guards everything below
    std::size_t capacity_ = 0;    ///< 0: unbounded
    bool closed_ = false;
    std::deque<T> buffer_;
    detail::wait_queue receivers_;  ///< slot: std::optional<T>* to deliver into
    detail::wait_queue senders_;    ///< slot: T* to take the value from
};

}  // namespace weft
