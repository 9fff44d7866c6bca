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
#include <utility>
#include <vector>

namespace weft::distributed::detail {

/// The promises of the remote calls this locality waits for, by continuation id. An id
/// is a slot's index + 1 (low 32 bits) and the slot's use count (high 32 bits): slots are
/// reused through a free list (no allocation per call once the table has grown to the
/// calls in flight), and an answer for a call that finished, or a forged one, names a use
/// that is over and finds nothing.
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
        std::uint32_t index = free_;
        if (index == no_slot) {
            index = static_cast<std::uint32_t>(slots_.size());
            slots_.emplace_back();
        } else {
            free_ = slots_[index].next_free;
        }
        slot& s = slots_[index];
        s.e = std::move(e);
        ++s.uses;
        ++waiting_;
        return {(std::uint64_t{s.uses} << 32) | (std::uint64_t{index} + 1), std::move(f)};
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
        return waiting_;
    }

    /// Fails every call still waiting with `x` (a locality that died, a runtime that
    /// stops): no caller is left waiting for ever.
    void fail_all(const std::exception_ptr& x) {
        std::vector<std::unique_ptr<entry>> all;
        {
            const std::lock_guard lock(mutex_);
            for (std::uint32_t i = 0; i < slots_.size(); ++i)
                if (slots_[i].e) {
                    all.push_back(std::move(slots_[i].e));
                    slots_[i].next_free = free_;
                    free_ = i;
                }
            waiting_ = 0;
        }
        for (auto& e : all) e->fail(x);
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
        const std::uint64_t low = id & 0xffff'ffffu;
        if (low == 0) return nullptr;
        const auto index = static_cast<std::uint32_t>(low - 1);
        const std::lock_guard lock(mutex_);
        if (index >= slots_.size()) return nullptr;
        slot& s = slots_[index];
        if (!s.e || s.uses != static_cast<std::uint32_t>(id >> 32)) return nullptr;
        std::unique_ptr<entry> e = std::move(s.e);
        s.next_free = free_;
        free_ = index;
        --waiting_;
        return e;
    }

    static constexpr std::uint32_t no_slot = ~std::uint32_t{0};
    struct slot {
        std::unique_ptr<entry> e;  ///< null: free
        std::uint32_t uses = 0;    ///< the id's high half (wraps after 2^32 uses of one slot)
        std::uint32_t next_free = no_slot;
    };

    mutable std::mutex mutex_;
    std::vector<slot> slots_;
    std::uint32_t free_ = no_slot;
    std::size_t waiting_ = 0;
};

}  // namespace weft::distributed::detail
