// Where a remote action's result goes (issue #23): the calling locality keeps, per call
// in flight, the promise behind the caller's weft::future under an id that travels in
// the call parcel and comes back in the result or exception parcel. A result for an id
// that is not (or no longer) waiting, or that does not decode into the promise's type,
// is a malformed parcel: counted and reported, never trusted.
#pragma once

#include <weft/distributed/serialization.hpp>
#include <weft/futures/promise.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace weft::distributed::detail {

/// The promises of the remote calls this locality waits for, by continuation id.
class continuation_table {
public:
    continuation_table() = default;
    continuation_table(const continuation_table&) = delete;
    continuation_table& operator=(const continuation_table&) = delete;

    /// Registers a promise for a call returning T; returns its id (never 0: 0 means "no
    /// answer wanted") and the caller's future.
    template <class T>
    std::pair<std::uint64_t, weft::future<T>> add() {
        auto e = std::make_unique<typed_entry<T>>();
        weft::future<T> f = e->p.get_future();
        const std::lock_guard lock(mutex_);
        const std::uint64_t id = next_++;
        waiting_.emplace(id, std::move(e));
        return {id, std::move(f)};
    }

    /// Completes `id` with the value encoded in `payload`. False (nothing changed, the
    /// parcel is malformed) if nobody waits for `id`; if the payload does not decode into
    /// the waiting type, the caller's future receives the weft::serialization_error.
    bool complete(std::uint64_t id, std::span<const std::byte> payload) {
        serialization::input_archive in(payload);
        return complete(id, in);
    }
    /// As above, reading the value (all of it) from `in`, whose chunks may still be arriving.
    bool complete(std::uint64_t id, serialization::input_archive& in) {
        std::unique_ptr<entry> e = take(id);
        if (!e) return false;
        e->complete(in);
        return true;
    }

    /// Completes `id` with an exception; false if nobody waits for `id`.
    bool fail(std::uint64_t id, std::exception_ptr x) {
        std::unique_ptr<entry> e = take(id);
        if (!e) return false;
        e->fail(std::move(x));
        return true;
    }

    /// Calls still waiting for an answer.
    std::size_t waiting() const {
        const std::lock_guard lock(mutex_);
        return waiting_.size();
    }

    /// Fails every call still waiting with `x` (a locality that died, a runtime that
    /// stops): no caller is left waiting for ever.
    void fail_all(const std::exception_ptr& x) {
        std::unordered_map<std::uint64_t, std::unique_ptr<entry>> all;
        {
            const std::lock_guard lock(mutex_);
            all.swap(waiting_);
        }
        for (auto& [id, e] : all) e->fail(x);
    }

private:
    struct entry {
        virtual ~entry() = default;
        virtual void complete(serialization::input_archive& in) = 0;
        virtual void fail(std::exception_ptr x) = 0;
    };
    template <class T>
    struct typed_entry final : entry {
        weft::promise<T> p;
        void complete(serialization::input_archive& in) override {
            try {
                if constexpr (std::is_void_v<T>) {
                    in.finish();
                    p.set_value();
                } else {
                    T v{};
                    in(v);
                    in.finish();
                    p.set_value(std::move(v));
                }
            } catch (...) {
                p.set_exception(std::current_exception());
            }
        }
        void fail(std::exception_ptr x) override { p.set_exception(std::move(x)); }
    };

    std::unique_ptr<entry> take(std::uint64_t id) {
        const std::lock_guard lock(mutex_);
        const auto it = waiting_.find(id);
        if (it == waiting_.end()) return nullptr;
        std::unique_ptr<entry> e = std::move(it->second);
        waiting_.erase(it);
        return e;
    }

    mutable std::mutex mutex_;
    std::unordered_map<std::uint64_t, std::unique_ptr<entry>> waiting_;
    std::uint64_t next_ = 1;
};

}  // namespace weft::distributed::detail
