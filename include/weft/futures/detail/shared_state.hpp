// The shared state behind weft futures: the value or exception, the list of waiters
// and continuations, an optional deferred function, and a reference count, in one block
// that can also hold the producing task.
#pragma once

#include <weft/sched/detail/task_block.hpp>
#include <weft/sched/post.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::detail {

class shared_state_base;

/// The deferred states a deferred start found among its inputs, to start next: run_deferred
/// starts a chain of deferred states one after the other instead of one inside the other
/// (a deferred chain of 10^6 steps would otherwise overflow the stack, issue #20). Holds
/// a reference to each (another holder could start, finish and drop one meanwhile). A few
/// slots in place; a wide deferred graph spills into a vector.
class deferred_starts {
public:
    deferred_starts() noexcept = default;
    deferred_starts(const deferred_starts&) = delete;
    deferred_starts& operator=(const deferred_starts&) = delete;

    /// Adds `s` (and a reference to it) to start later; false if no memory was left for
    /// it (then start it now).
    inline bool push(shared_state_base* s) noexcept;
    /// The next state to start, with the reference push took; null when none is left.
    shared_state_base* pop() noexcept {
        if (!more_.empty()) {
            shared_state_base* s = more_.back();
            more_.pop_back();
            return s;
        }
        return n_ > 0 ? slots_[--n_] : nullptr;
    }

private:
    static constexpr std::size_t in_place = 4;
    shared_state_base* slots_[in_place];
    std::size_t n_ = 0;
    std::vector<shared_state_base*> more_;
};

/// The type-independent part: readiness, waiters and lifetime.
///
/// state_ is 0 (not ready, nobody waiting), 1 (ready) or the head of an intrusive list
/// of waiters (not ready). set_value writes the storage, then publishes it with a
/// release exchange of state_ that also takes the waiter list exactly once; readers
/// acquire state_. Waiters (tasks, threads, continuations) are CAS-pushed and the push
/// fails once the state is ready.
class shared_state_base {
public:
    static constexpr std::uintptr_t ready_tag = 1;

    shared_state_base(const shared_state_base&) = delete;
    shared_state_base& operator=(const shared_state_base&) = delete;

    bool is_ready() const noexcept {
        // acquire: pairs with the release in mark_ready(); makes the value visible.
        return state_.load(std::memory_order_acquire) == ready_tag;
    }

    /// Waits until ready: runs a deferred function first (once, by the first waiter);
    /// then tries to run the producing task inline (if it is still queued on this
    /// worker); else suspends the calling task or blocks the thread.
    void wait() {
        if (is_ready()) return;
        if (deferred_ != nullptr) {
            run_deferred();
            if (is_ready()) return;  // it ran here: no suspension (which would cost a switch both ways)
        }
        if (producer_ != nullptr) {
            if (worker_hot* w = current_worker_hot(); try_take_back_fast(w, producer_)) {
                execute_taken(w, producer_);
                return;  // the producer ran to completion, on this stack, before we continue
            }
            if (try_run_inline(producer_) && is_ready()) return;
        }
        if (poll_while_waiting([](const void* me) noexcept { return static_cast<const shared_state_base*>(me)->is_ready(); },
                               this))
            return;
        // For the deadlock report: the producing task (async) set its id at spawn, before
        // its future existed.
        wait_until_notified([this](waiter& w) { return add_waiter(w); },
                            wait_reason{wait_kind::future, this, producer_ != nullptr ? producer_->id : 0});
    }

    /// Registers `w` to be notified when the state becomes ready; false if it already
    /// is (then `w` is not registered and will not be notified).
    bool add_waiter(waiter& w) noexcept {
        // acquire: if it is ready, the value must be visible to the caller.
        std::uintptr_t head = state_.load(std::memory_order_acquire);
        if (head == ready_tag) return false;
        // The first waiters are remembered for mark_ready's prefetch (see there). Before
        // the push: once w is published, the state may complete and be freed at any time.
        // A hint may be lost to a racing registration, or name a waiter whose push then
        // fails; either is harmless. relaxed: hints are only prefetched, never followed.
        if (const std::uint8_t n = hint_count_.load(std::memory_order_relaxed); n < hint_slots) {
            hints_[n].store(&w, std::memory_order_relaxed);
            hint_count_.store(static_cast<std::uint8_t>(n + 1), std::memory_order_relaxed);
        }
        do {
            if (head == ready_tag) return false;
            w.next = reinterpret_cast<waiter*>(head);
            // release: publishes w; acquire on failure: see a fresh head or the value.
        } while (!state_.compare_exchange_weak(head, reinterpret_cast<std::uintptr_t>(&w),
                                               std::memory_order_release, std::memory_order_acquire));
        return true;
    }

    /// What a combinator does with each input: starts it if it is deferred (its result is
    /// needed now), then registers `w`; false if it is ready already (then `w` is not
    /// registered and will not be notified).
    bool watch(waiter& w) noexcept {
        run_deferred();
        return add_waiter(w);
    }

    /// Starts a deferred function (launch::deferred) if there is one and nobody did.
    /// Starting one registers it on its inputs and starts those that are deferred too,
    /// iteratively: a deferred chain of any length starts in constant stack. The function
    /// itself runs once its inputs are ready (inline here if they are already).
    void run_deferred() noexcept {
        if (!claim_deferred()) return;
        deferred_starts more;
        shared_state_base* s = this;
        for (;;) {
            s->deferred_(s, more);
            if (s != this) s->release();  // more's reference; the caller holds one to this
            for (;;) {
                s = more.pop();
                if (s == nullptr) return;
                if (s->claim_deferred()) break;
                s->release();
            }
        }
    }

    /// True while the state holds a deferred function that nobody has started (what
    /// wait_for reports as future_status::deferred).
    bool deferred_pending() const noexcept {
        // acquire: pairs with the exchange in claim_deferred().
        return deferred_ != nullptr && !deferred_started_.load(std::memory_order_acquire);
    }

    void add_ref() noexcept {
        // relaxed: a new reference is made from an existing one; nothing to order.
        refs_.fetch_add(1, std::memory_order_relaxed);
    }
    void release() noexcept {
        // acq_rel: the last owner must see every other owner's writes before destroying.
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy_(this);
    }

    bool has_exception() const noexcept { return has_exception_; }
    const std::exception_ptr& exception() const noexcept { return exception_; }
    /// Moves the stored exception out, for the one consumer of a unique future. The state
    /// then no longer refers to the exception object, so whichever thread destroys the
    /// state later never touches it: the consumer alone owns it (the exception's own
    /// reference count lives in uninstrumented libstdc++, which TSan cannot see).
    std::exception_ptr take_exception() noexcept { return std::move(exception_); }

protected:
    using destroy_fn = void (*)(shared_state_base*) noexcept;
    /// Starts a deferred state: registers it on its inputs and adds those that may be
    /// deferred too to `more` (run_deferred starts them next); runs it if they are ready.
    using deferred_fn = void (*)(shared_state_base* self, deferred_starts& more) noexcept;
    shared_state_base(destroy_fn d, std::uint32_t refs) noexcept : refs_(refs), destroy_(d) {}
    ~shared_state_base() = default;

    /// What a block's destroy function (destroy_) calls once the last reference is gone:
    /// `raw(s)` destroys and frees the block. `deep`: destroying it may release other
    /// states (its value, a callable not yet run or an exception may hold futures), so
    /// chains of such states must not be destroyed recursively (issue #20): in a task, it
    /// recurses while a quarter of the stack is left and hands the rest to a new task; on
    /// a plain thread, nested releases queue up and the outermost one destroys them in turn.
    static void dispose(shared_state_base* s, destroy_fn raw, bool deep) noexcept {
        if (!deep) {
            raw(s);
            return;
        }
        if (worker_hot* w = current_worker_hot(); w != nullptr && w->current_ctx != nullptr) {
            // A task may suspend in a destructor and resume on another worker: nothing
            // here may live in thread-local storage across raw(s), so the stack bounds it.
            if (stack_room_left(w)) {
                raw(s);
                return;
            }
            try {
                post_internal("weft::future release", [s, raw] { raw(s); });
                return;
            } catch (...) {  // no runtime to run it (stopping) or no memory: here, then
            }
            raw(s);
            return;
        }
        // Not in a task: nothing suspends this thread, so a thread-local queue is safe. The
        // dead state links the queue (state_ holds the next one, pending_destroy_ how to
        // destroy it).
        struct pending_releases {
            shared_state_base* head = nullptr;
            bool draining = false;
        };
        static thread_local pending_releases q;
        if (q.draining) {
            // relaxed: the state is dead; only this thread reads it again.
            s->state_.store(reinterpret_cast<std::uintptr_t>(q.head), std::memory_order_relaxed);
            s->pending_destroy_ = raw;
            q.head = s;
            return;
        }
        q.draining = true;
        raw(s);
        while (shared_state_base* next = q.head) {
            // relaxed: written by this thread above.
            q.head = reinterpret_cast<shared_state_base*>(next->state_.load(std::memory_order_relaxed));
            next->pending_destroy_(next);
        }
        q.draining = false;
    }

    /// Starts loading the waiters that mark_ready will notify. They usually sit in blocks
    /// built long ago and gone cold (a dataflow graph built ahead), and walking the list
    /// takes one cache miss after the other; prefetching the newest waiter (the head) and
    /// the two oldest (the hints) overlaps those misses: the three dependents of a 1D
    /// stencil partition cost one miss instead of three. mark_ready calls it; a task that
    /// will set this state calls it when it starts, so the misses overlap its own work.
    /// relaxed: these values are only prefetched, never followed.
    void prefetch_waiters() const noexcept {
        // With one waiter there is nothing to overlap: it is the head, read right away.
        if (hint_count_.load(std::memory_order_relaxed) >= 2) {
            __builtin_prefetch(reinterpret_cast<const void*>(state_.load(std::memory_order_relaxed)), 1);
            for (const auto& h : hints_) __builtin_prefetch(h.load(std::memory_order_relaxed), 1);
        }
    }

    /// Publishes the result and notifies every waiter, in the order they came.
    void mark_ready() noexcept {
        prefetch_waiters();
        // acq_rel: release publishes the result; acquire takes the waiters' nodes.
        const std::uintptr_t list = state_.exchange(ready_tag, std::memory_order_acq_rel);
        WEFT_ASSERT(list != ready_tag);
        waiter* reversed = nullptr;  // the list is newest first
        for (auto* w = reinterpret_cast<waiter*>(list); w != nullptr;) {
            waiter* next = w->next;
            w->next = reversed;
            reversed = w;
            w = next;
        }
        while (reversed != nullptr) {
            waiter* next = reversed->next;  // read before notify: the waiter may vanish after it
            reversed->notify();
            reversed = next;
        }
    }

    void store_exception(std::exception_ptr e) noexcept {
        exception_ = std::move(e);
        has_exception_ = true;
    }

    /// The task that sets this state, when it lives in the same block (async); set once
    /// before the block is published and never changed, so readers need no ordering.
    task* producer_ = nullptr;
    union {
        /// Set once before the state is published (launch::deferred continuations).
        deferred_fn deferred_ = nullptr;
        /// Once the state is dead and queued by dispose(): how to destroy it.
        destroy_fn pending_destroy_;
    };

private:
    /// True for the one caller that starts this state's deferred function.
    bool claim_deferred() noexcept {
        // acq_rel: the thread that wins the exchange sees the deferred setup.
        return deferred_ != nullptr && !deferred_started_.exchange(true, std::memory_order_acq_rel);
    }

    std::atomic<std::uintptr_t> state_{0};
    std::atomic<std::uint32_t> refs_;
    std::atomic<bool> deferred_started_{false};
    bool has_exception_ = false;
    std::atomic<std::uint8_t> hint_count_{0};  // in the padding before destroy_
    destroy_fn destroy_;
    std::exception_ptr exception_;
    // Two hints keep shared_state_base at one cache line (and an async<int> block at two).
    static constexpr std::uint8_t hint_slots = 2;
    std::atomic<waiter*> hints_[hint_slots] = {};
};

static_assert(sizeof(shared_state_base) <= cache_line_size, "a future's bookkeeping fits one cache line");

inline bool deferred_starts::push(shared_state_base* s) noexcept {
    if (n_ < in_place) {
        slots_[n_++] = s;
    } else {
        try {
            more_.push_back(s);
        } catch (...) {
            return false;
        }
    }
    s->add_ref();
    return true;
}

/// Storage for the value of a future<T>: T, a pointer for T&, nothing for void.
template <class T>
struct value_storage {
    alignas(T) unsigned char bytes[sizeof(T)];
    bool engaged = false;
    value_storage() noexcept = default;
    value_storage(const value_storage&) = delete;
    T& get() noexcept { return *std::launder(reinterpret_cast<T*>(bytes)); }
    template <class... A>
    void emplace(A&&... a) {
        ::new (static_cast<void*>(bytes)) T(std::forward<A>(a)...);
        engaged = true;
    }
    ~value_storage() {
        if (engaged) get().~T();
    }
};
template <class T>
struct value_storage<T&> {
    T* ptr = nullptr;
    T& get() noexcept { return *ptr; }
    void emplace(T& r) noexcept { ptr = std::addressof(r); }
};
template <>
struct value_storage<void> {
    void get() noexcept {}
    void emplace() noexcept {}
};

/// The shared state of a future<T>.
template <class T>
class shared_state : public shared_state_base {
public:
    template <class... A>
    void set_value(A&&... a) {
        value_.emplace(std::forward<A>(a)...);
        mark_ready();
    }
    void set_exception(std::exception_ptr e) noexcept {
        store_exception(std::move(e));
        mark_ready();
    }
    /// The value, or rethrows the stored exception. Only once ready.
    std::add_lvalue_reference_t<T> value() {
        if (has_exception()) std::rethrow_exception(exception());
        return value_.get();
    }

protected:
    using shared_state_base::shared_state_base;
    ~shared_state() = default;

    /// True if destroying the result may release other shared states (a value whose type
    /// has a destructor may hold futures; so may an exception object): see dispose().
    bool result_may_hold_states() const noexcept {
        if constexpr (std::is_void_v<T> || std::is_reference_v<T> || std::is_trivially_destructible_v<T>)
            return has_exception();
        else
            return true;
    }

private:
    value_storage<T> value_;
};

/// A shared state on its own block from the task-block pool (promise, make_ready_future).
template <class T>
class standalone_state final : public shared_state<T> {
public:
    explicit standalone_state(std::uint32_t refs) noexcept : shared_state<T>(&destroy, refs) {}

    static standalone_state* make(std::uint32_t refs) { return make_block<standalone_state>(refs); }

private:
    static void destroy(shared_state_base* s) noexcept {
        shared_state_base::dispose(s, &destroy_now, static_cast<standalone_state*>(s)->result_may_hold_states());
    }
    static void destroy_now(shared_state_base* s) noexcept { destroy_block(static_cast<standalone_state*>(s)); }
};

/// Nothing to release after a call (see fulfil).
struct keep_all {
    void operator()() const noexcept {}
};

/// Runs `f()` and stores its result (or exception) into `s`. Call it as the last act of
/// a task: publishing happens inside a completion_scope (scheduler bypass).
///
/// `done()` runs after f returns or throws and before the result is published: a block
/// destroys its callable and arguments there, so that a ready state never keeps what
/// its function captured (the previous future of a chain, issue #20) and their
/// destructors have run when a waiter wakes. The result must not refer into them. It
/// runs again if storing the value throws, so it must be idempotent.
///
/// An exception is published after its catch block has ended: the thrower's own hold on
/// the exception object is dropped before a consumer can see it, so the consumer is
/// its last owner (the exception's reference count lives in uninstrumented libstdc++,
/// so TSan would otherwise see the thrower's late release race with the consumer's use).
template <class T, class F, class Done = keep_all>
void fulfil(shared_state<T>& s, F&& f, Done&& done = {}) noexcept {
    static_assert(std::is_nothrow_invocable_v<Done&>);
    std::exception_ptr error;
    try {
        if constexpr (std::is_void_v<T>) {
            std::forward<F>(f)();
            done();
            completion_scope last_act;
            s.set_value();
        } else if constexpr (std::is_reference_v<T>) {
            T r = std::forward<F>(f)();
            done();
            completion_scope last_act;
            s.set_value(r);
        } else {
            T v = std::forward<F>(f)();
            done();
            completion_scope last_act;
            s.set_value(std::move(v));
        }
        return;
    } catch (...) {
        error = std::current_exception();
    }
    done();
    completion_scope last_act;
    s.set_exception(std::move(error));
}

}  // namespace weft::detail
