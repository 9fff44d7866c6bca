// weft::when_any, when_some, when_each and wait_all, wait_any, wait_some: waiting for
// the first, the first n, or each of several futures.
#pragma once

#include <weft/futures/detail/fan_in.hpp>
#include <weft/futures/when_all.hpp>

#include <atomic>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace weft {

/// What when_any returns: the index of a ready input and all the inputs.
template <class Sequence>
struct when_any_result {
    std::size_t index;
    Sequence futures;
};

/// What when_some returns: the indices of the first n ready inputs (in the order they
/// became ready) and all the inputs.
template <class Sequence>
struct when_some_result {
    std::vector<std::size_t> indices;
    Sequence futures;
};

namespace detail {

/// Becomes ready with the indices of the first `need` of `states` to be ready. Holds a
/// reference to every input state and one per registered node, so that a node that
/// fires late never touches freed memory. (An input that never becomes ready keeps this
/// small block alive as long as the input itself lives.)
class first_ready_block final : public shared_state<std::vector<std::size_t>> {
public:
    first_ready_block(std::vector<shared_state_base*> states, std::size_t need)
        : shared_state(&destroy, static_cast<std::uint32_t>(1 + states.size())),
          states_(std::move(states)),
          nodes_(states_.size()),
          need_(need),
          indices_(need) {}

    void start() noexcept {
        if (need_ == 0) {
            set_value(std::vector<std::size_t>{});
        }
        for (std::size_t i = 0; i < states_.size(); ++i) {
            nodes_[i].owner = this;
            nodes_[i].index = i;
            nodes_[i].arrived = &arrived;
            nodes_[i].watch(states_[i]);
        }
    }

private:
    static void arrived(void* owner, std::size_t index) noexcept {
        auto* self = static_cast<first_ready_block*>(owner);
        // relaxed: only hands out distinct slots; `written_` orders the slot writes.
        const std::size_t k = self->arrivals_.fetch_add(1, std::memory_order_relaxed);
        if (k < self->need_) {
            self->indices_[k] = index;
            // acq_rel: the completer sees every slot written before it.
            if (self->written_.fetch_add(1, std::memory_order_acq_rel) + 1 == self->need_) {
                // Completions may cascade through a chain: bounded (issue #20). The node's
                // reference keeps the block alive until then.
                complete_bounded("weft::when_any", [self]() noexcept {
                    try {
                        self->set_value(std::move(self->indices_));
                    } catch (...) {
                        self->set_exception(std::current_exception());
                    }
                    self->release();
                });
                return;
            }
        }
        self->release();  // this node's reference
    }
    static void destroy(shared_state_base* s) noexcept {
        shared_state_base::dispose(s, &destroy_now, true);  // it holds its inputs
    }
    static void destroy_now(shared_state_base* s) noexcept {
        auto* self = static_cast<first_ready_block*>(static_cast<shared_state<std::vector<std::size_t>>*>(s));
        for (shared_state_base* in : self->states_) in->release();
        destroy_block(self);
    }

    std::vector<shared_state_base*> states_;
    std::vector<fan_in_node> nodes_;
    std::size_t need_;
    std::vector<std::size_t> indices_;
    std::atomic<std::size_t> arrivals_{0};
    std::atomic<std::size_t> written_{0};
};

/// A future of the indices of the first `need` ready states (each gets a reference).
inline future<std::vector<std::size_t>> first_ready(std::vector<shared_state_base*> states, std::size_t need) {
    if (need > states.size())
        throw std::invalid_argument("weft::when_some/wait_some: asked for " + std::to_string(need) +
                                    " ready futures out of " + std::to_string(states.size()));
    for (shared_state_base* s : states) {
        if (s == nullptr) throw_future_error(std::future_errc::no_state);
    }
    for (shared_state_base* s : states) s->add_ref();
    auto* b = make_block<first_ready_block>(std::move(states), need);
    future<std::vector<std::size_t>> result(b);
    b->start();
    return result;
}

template <class Tuple>
std::vector<shared_state_base*> states_in(const Tuple& t) {
    std::vector<shared_state_base*> v;
    std::apply([&](const auto&... f) { (v.push_back(state_of(f)), ...); }, t);
    return v;
}
template <class F>
std::vector<shared_state_base*> states_in(const std::vector<F>& fs) {
    std::vector<shared_state_base*> v;
    v.reserve(fs.size());
    for (const auto& f : fs) v.push_back(state_of(f));
    return v;
}

template <class It>
auto collect(It first, It last) {
    using F = std::iter_value_t<It>;
    static_assert(std::is_constructible_v<F, std::iter_rvalue_reference_t<It>>,
                  "weft::when_any/when_some/when_each: unique futures are moved out of the range: pass a non-const one");
    std::vector<F> v;
    for (; first != last; ++first) {
        if constexpr (std::is_copy_constructible_v<F>) v.push_back(*first);
        else v.push_back(std::move(*first));
    }
    return v;
}

template <class Sequence>
future<when_some_result<Sequence>> when_some_of(std::size_t n, Sequence seq) {
    auto first = first_ready(states_in(seq), n);
    return std::move(first).then(launch::sync, [s = std::move(seq)](future<std::vector<std::size_t>> idx) mutable {
        return when_some_result<Sequence>{idx.get(), std::move(s)};
    });
}

}  // namespace detail

/// The first of the inputs to be ready: future<when_any_result<std::tuple<Fs...>>>.
/// futures are moved in, shared_futures copied. With no input, ready at once with
/// index = std::size_t(-1).
template <class... Fs>
    requires(detail::is_future_v<Fs> && ...)
auto when_any(Fs&&... fs) {
    static_assert(detail::storable_futures_v<Fs...>,
                  "weft::when_any: pass unique futures with std::move(f) (or use shared_future)");
    using S = std::tuple<detail::stored_future_t<Fs>...>;
    if constexpr (!detail::storable_futures_v<Fs...>) {
        return future<when_any_result<S>>();
    } else if constexpr (sizeof...(Fs) == 0) {
        return make_ready_future(when_any_result<S>{static_cast<std::size_t>(-1), S{}});
    } else {
        return detail::when_some_of(1, S(std::forward<Fs>(fs)...))
            .then(launch::sync, [](future<when_some_result<S>> r) {
                auto v = r.get();
                return when_any_result<S>{v.indices.front(), std::move(v.futures)};
            });
    }
}

/// The range form of when_any: future<when_any_result<std::vector<F>>>.
template <std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
auto when_any(It first, It last) {
    using S = std::vector<std::iter_value_t<It>>;
    S seq = detail::collect(first, last);
    if (seq.empty()) return make_ready_future(when_any_result<S>{static_cast<std::size_t>(-1), S{}});
    return detail::when_some_of(1, std::move(seq)).then(launch::sync, [](future<when_some_result<S>> r) {
        auto v = r.get();
        return when_any_result<S>{v.indices.front(), std::move(v.futures)};
    });
}

/// The range form of when_any over a whole range (moves futures out of it, copies
/// shared_futures).
template <detail::future_range Range>
auto when_any(Range&& r) {
    return when_any(std::begin(r), std::end(r));
}

/// The first `n` inputs to be ready (indices in the order they became ready).
/// @throws std::invalid_argument if n exceeds the number of inputs.
template <class... Fs>
    requires(detail::is_future_v<Fs> && ...)
auto when_some(std::size_t n, Fs&&... fs) {
    static_assert(detail::storable_futures_v<Fs...>,
                  "weft::when_some: pass unique futures with std::move(f) (or use shared_future)");
    using S = std::tuple<detail::stored_future_t<Fs>...>;
    if constexpr (detail::storable_futures_v<Fs...>) return detail::when_some_of(n, S(std::forward<Fs>(fs)...));
    else return future<when_some_result<S>>();
}

/// The range form of when_some.
template <std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
auto when_some(std::size_t n, It first, It last) {
    return detail::when_some_of(n, detail::collect(first, last));
}
/// when_some over a whole range (moves futures out of it, copies shared_futures).
template <detail::future_range Range>
auto when_some(std::size_t n, Range&& r) {
    return when_some(n, std::begin(r), std::end(r));
}

namespace detail {
template <class Fn, class Fut>
future<void> call_when_ready(const std::shared_ptr<Fn>& fn, Fut&& in) {
    using F = std::remove_cvref_t<Fut>;
    // A sync continuation: f runs as soon as the input is ready, and receives it.
    return std::forward<Fut>(in).then(launch::sync, [fn](F ready) { (*fn)(std::move(ready)); });
}
inline future<void> all_calls_done(std::vector<future<void>> calls) {
    return when_all(calls).then(launch::sync, [](future<std::vector<future<void>>> all) {
        for (auto& c : all.get()) c.get();  // rethrows the first exception from f
    });
}
}  // namespace detail

/// Calls `f(future)` for each input as soon as it is ready (possibly concurrently, on
/// whichever thread completes it: `f` must be thread-safe); `f` receives the ready
/// future. The returned future is ready when every call has returned; an exception
/// from `f` is rethrown by it.
template <class F, std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
future<void> when_each(F&& f, It first, It last) {
    static_assert(std::is_constructible_v<std::iter_value_t<It>, std::iter_rvalue_reference_t<It>>,
                  "weft::when_each: unique futures are moved out of the range: pass a non-const one");
    auto fn = std::make_shared<std::decay_t<F>>(std::forward<F>(f));
    std::vector<future<void>> calls;
    for (; first != last; ++first) {
        if constexpr (std::is_copy_constructible_v<std::iter_value_t<It>>) calls.push_back(detail::call_when_ready(fn, *first));
        else calls.push_back(detail::call_when_ready(fn, std::move(*first)));
    }
    return detail::all_calls_done(std::move(calls));
}

/// when_each over a whole range (moves futures out of it, copies shared_futures).
template <class F, detail::future_range Range>
future<void> when_each(F&& f, Range&& r) {
    return when_each(std::forward<F>(f), std::begin(r), std::end(r));
}

/// The variadic form of when_each (f must accept every input type).
template <class F, class... Fs>
    requires(detail::is_future_v<Fs> && ...)
future<void> when_each(F&& f, Fs&&... fs) {
    static_assert(detail::storable_futures_v<Fs...>,
                  "weft::when_each: pass unique futures with std::move(f) (or use shared_future)");
    if constexpr (detail::storable_futures_v<Fs...>) {
        auto fn = std::make_shared<std::decay_t<F>>(std::forward<F>(f));
        std::vector<future<void>> calls;
        (calls.push_back(detail::call_when_ready(fn, std::forward<Fs>(fs))), ...);
        return detail::all_calls_done(std::move(calls));
    } else {
        return {};
    }
}

/// Waits until every input is ready (they stay valid).
template <class... Fs>
    requires(detail::is_future_v<Fs> && ...)
void wait_all(const Fs&... fs) {
    (fs.wait(), ...);
}
/// The range form of wait_all.
template <std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
void wait_all(It first, It last) {
    for (; first != last; ++first) first->wait();
}
/// wait_all over a whole range.
template <detail::future_range Range>
void wait_all(const Range& r) {
    wait_all(std::begin(r), std::end(r));
}

/// Waits until the first `n` inputs are ready and returns their indices, in the order
/// they became ready (the inputs stay valid). @throws std::invalid_argument if n is
/// larger than the number of inputs.
template <class... Fs>
    requires(detail::is_future_v<Fs> && ...)
std::vector<std::size_t> wait_some(std::size_t n, const Fs&... fs) {
    return detail::first_ready({detail::state_of(fs)...}, n).get();
}
template <std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
std::vector<std::size_t> wait_some(std::size_t n, It first, It last) {
    std::vector<detail::shared_state_base*> v;
    for (; first != last; ++first) v.push_back(detail::state_of(*first));
    return detail::first_ready(std::move(v), n).get();
}
/// wait_some over a whole range.
template <detail::future_range Range>
std::vector<std::size_t> wait_some(std::size_t n, const Range& r) {
    return wait_some(n, std::begin(r), std::end(r));
}

/// Waits until one input is ready and returns its index (the inputs stay valid).
template <class... Fs>
    requires(detail::is_future_v<Fs> && ...) && (sizeof...(Fs) > 0)
std::size_t wait_any(const Fs&... fs) {
    return wait_some(1, fs...).front();
}
template <std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
std::size_t wait_any(It first, It last) {
    return wait_some(1, first, last).front();
}
/// wait_any over a whole range.
template <detail::future_range Range>
std::size_t wait_any(const Range& r) {
    return wait_any(std::begin(r), std::end(r));
}

}  // namespace weft
