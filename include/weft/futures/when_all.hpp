// weft::when_all: a future that becomes ready when every input future is ready.
#pragma once

#include <weft/futures/detail/fan_in.hpp>

#include <array>
#include <atomic>
#include <iterator>
#include <tuple>
#include <vector>

namespace weft {
namespace detail {

/// Holds the input futures until the last one is ready, then hands them over as the
/// value of its own state. References: the returned future + one until completion.
template <class Sequence, std::size_t N>
class when_all_block final : public shared_state<Sequence> {
public:
    explicit when_all_block(Sequence&& futures, std::size_t n)
        : shared_state<Sequence>(&destroy, 2), futures_(std::move(futures)), nodes_(n), remaining_(n + 1) {}

    void start() noexcept {
        std::size_t i = 0;
        auto watch = [&](shared_state_base* s) {
            fan_in_node& node = nodes_[i];
            node.owner = this;
            node.index = i++;
            node.arrived = &arrived;
            node.watch(s);
        };
        if constexpr (N == 0) {  // a range
            for (auto& f : futures_) watch(state_of(f));
        } else {
            for_each_future(futures_, [&](std::size_t, shared_state_base* s) { watch(s); });
        }
        arrived(this, 0);  // registration finished: drop the extra count
    }

private:
    static void arrived(void* owner, std::size_t) noexcept {
        auto* self = static_cast<when_all_block*>(owner);
        // acq_rel: the last arrival sees every input's result and the registration.
        if (self->remaining_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        // A chain of when_alls completes in one cascade: bounded (issue #20).
        complete_bounded("weft::when_all", [self]() noexcept { self->complete(); });
    }
    void complete() noexcept {
        try {
            this->set_value(std::move(futures_));
        } catch (...) {
            this->set_exception(std::current_exception());
        }
        this->release();
    }
    static void destroy(shared_state_base* s) noexcept {
        shared_state_base::dispose(s, &destroy_now, true);  // its value holds the inputs
    }
    static void destroy_now(shared_state_base* s) noexcept {
        destroy_block(static_cast<when_all_block*>(static_cast<shared_state<Sequence>*>(s)));
    }

    Sequence futures_;
    std::vector<fan_in_node> nodes_;
    std::atomic<std::size_t> remaining_;
};

template <class S, std::size_t M>
future<S> make_when_all(S&& seq, std::size_t n) {
    auto* b = make_block<when_all_block<S, M>>(std::move(seq), n);
    future<S> result(static_cast<shared_state<S>*>(b));
    b->start();
    return result;
}

template <class F>
using stored_future_t = std::remove_cvref_t<F>;

}  // namespace detail

/// A future of every input, returned as they are (ready) once all of them are ready:
/// `when_all(f1, f2)` gives future<std::tuple<future<A>, future<B>>>. future arguments
/// are moved in, shared_futures copied. Exceptions stay inside the inputs.
/// @throws weft::future_error (no_state) if an input has no shared state (nothing is
/// moved from then).
template <class... Fs>
    requires(detail::is_future_v<Fs> && ...)
future<std::tuple<detail::stored_future_t<Fs>...>> when_all(Fs&&... fs) {
    static_assert(detail::storable_futures_v<Fs...>,
                  "weft::when_all: pass unique futures with std::move(f) (or use shared_future)");
    if constexpr (detail::storable_futures_v<Fs...>) {
        detail::require_states("weft::when_all", fs...);
        using S = std::tuple<detail::stored_future_t<Fs>...>;
        return detail::make_when_all<S, sizeof...(Fs) + 1>(S(std::forward<Fs>(fs)...), sizeof...(Fs));
    } else {
        return {};
    }
}

/// The range form: future<std::vector<F>> of the futures in [first, last) (moved out
/// for futures, copied for shared_futures). @throws weft::future_error (no_state) if
/// an input has no shared state; with a forward range, nothing is moved from then.
template <std::input_iterator It>
    requires detail::is_future_v<std::iter_value_t<It>>
future<std::vector<std::iter_value_t<It>>> when_all(It first, It last) {
    using F = std::iter_value_t<It>;
    static_assert(std::is_constructible_v<F, std::iter_rvalue_reference_t<It>>,
                  "weft::when_all: unique futures are moved out of the range: pass a non-const one");
    if constexpr (std::forward_iterator<It>) detail::require_states_in("weft::when_all", first, last);
    std::vector<F> v;
    for (; first != last; ++first) {
        if constexpr (std::is_copy_constructible_v<F>) v.push_back(*first);
        else v.push_back(std::move(*first));
    }
    if constexpr (!std::forward_iterator<It>) detail::require_states_in("weft::when_all", v.begin(), v.end());
    const std::size_t n = v.size();
    return detail::make_when_all<std::vector<F>, 0>(std::move(v), n);
}

/// when_all over a whole range of futures (moves futures out of it, copies shared_futures).
template <detail::future_range Range>
auto when_all(Range&& r) {
    return when_all(std::begin(r), std::end(r));
}

}  // namespace weft
