// The servers behind weft::distributed::latch and weft::distributed::channel<T>
// (include/weft/distributed/lcos.hpp; issue #24, seed 004 L51: an LCO is where flow
// control happens, whichever locality the events come from).
//
// Each is a component that never migrates (its type does not serialize), so calls
// reach it with no lookup. Its actions run as tasks on its locality: a wait or a
// receive suspends that task (never a worker) until the event, and the caller's task
// suspends on the action's future meanwhile. The channel's values travel as bytes (the
// handle serializes T), so one server type serves every T and needs no registration by
// the user.
#include "agas.hpp"

#include <weft/config/errors.hpp>
#include <weft/distributed/component.hpp>
#include <weft/distributed/lcos.hpp>
#include <weft/futures/promise.hpp>
#include <weft/lcos/channel.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace weft::distributed::detail {

/// A latch's count and its waiters. Waiters wait on promises of their own, not on a
/// weft::latch, so that release() can fail them.
class weft_latch_server : public weft::component<weft_latch_server> {
public:
    explicit weft_latch_server(std::int64_t expected) : count_(expected) {}

    void count_down(std::int64_t n) {
        std::vector<weft::promise<void>> open;
        {
            const std::lock_guard lock(mutex_);
            check_live();
            if (n < 0)
                throw lco_error(std::errc::invalid_argument,
                                "weft::distributed::latch: count_down(" + std::to_string(n) + "): a negative count");
            if (n > count_)
                throw lco_error(std::errc::invalid_argument, "weft::distributed::latch: count_down(" + std::to_string(n) +
                                                                 ") past zero: the count is " + std::to_string(count_));
            count_ -= n;
            if (count_ == 0) open.swap(waiters_);
        }
        for (auto& p : open) p.set_value();
    }

    void wait() {
        future<void> f;
        {
            const std::lock_guard lock(mutex_);
            if (count_ == 0) return;
            check_live();
            f = waiters_.emplace_back().get_future();
        }
        f.get();  // suspends this action's task
    }

    bool try_wait() {
        const std::lock_guard lock(mutex_);
        return count_ == 0;
    }

    /// The owner let go: waiters (and later calls) fail.
    void release() {
        std::vector<weft::promise<void>> failed;
        {
            const std::lock_guard lock(mutex_);
            released_ = true;
            failed.swap(waiters_);
        }
        for (auto& p : failed) p.set_exception(std::make_exception_ptr(released_error()));
    }

    WEFT_COMPONENT_ACTION(weft_latch_server, count_down, count_down_action);
    WEFT_COMPONENT_ACTION(weft_latch_server, wait, wait_action);
    WEFT_COMPONENT_ACTION(weft_latch_server, try_wait, try_wait_action);
    WEFT_COMPONENT_ACTION(weft_latch_server, release, release_action);

private:
    static lco_error released_error() {
        return lco_error(std::errc::operation_canceled,
                         "weft::distributed::latch: released by its creating locality before it opened");
    }
    void check_live() const {
        if (released_) throw released_error();
    }

    std::mutex mutex_;  ///< short sections only: nobody suspends holding it
    std::int64_t count_;
    bool released_ = false;
    std::vector<weft::promise<void>> waiters_;
};

/// A channel of serialized values: weft::channel does the queueing, the waiting and
/// the closing.
class weft_channel_server : public weft::component<weft_channel_server> {
    using bytes = std::vector<std::byte>;

public:
    explicit weft_channel_server(std::uint64_t capacity)
        : channel_(capacity == 0 ? std::make_unique<weft::channel<bytes>>()
                                 : std::make_unique<weft::channel<bytes>>(static_cast<std::size_t>(capacity))) {}

    void send(bytes value) { channel_->send(std::move(value)); }  // suspends while full
    bytes receive() { return channel_->receive(); }                // suspends while empty
    void close() { channel_->close(); }

    WEFT_COMPONENT_ACTION(weft_channel_server, send, send_action);
    WEFT_COMPONENT_ACTION(weft_channel_server, receive, receive_action);
    WEFT_COMPONENT_ACTION(weft_channel_server, close, close_action);

private:
    std::unique_ptr<weft::channel<bytes>> channel_;
};

}  // namespace weft::distributed::detail

WEFT_REGISTER_COMPONENT(weft::distributed::detail::weft_latch_server);
WEFT_REGISTER_COMPONENT(weft::distributed::detail::weft_channel_server);

namespace weft::distributed::detail {

namespace {

/// Makes a `T` here and registers it under `basename`; destroys it again if the name is
/// taken.
template <class T, class A>
id_type create_named(const char* what, const std::string& basename, A arg) {
    check_target(what, here(), true);
    const id_type id = create_component<T>(arg);
    bool registered = false;
    try {
        registered = register_with_basename(basename, id).get();
    } catch (...) {
        destroy(id).get();
        throw;
    }
    if (!registered) {
        destroy(id).get();
        throw weft::error(std::string(what) + ": the name '" + basename + "' is taken");
    }
    return id;
}

}  // namespace

void lcos_start() noexcept {}

id_type latch_create(const std::string& basename, std::int64_t expected) {
    if (expected < 0)
        throw lco_error(std::errc::invalid_argument,
                        "weft::distributed::latch::create: a negative expected count " + std::to_string(expected));
    return create_named<weft_latch_server>("weft::distributed::latch::create", basename, expected);
}

future<void> latch_count_down(const id_type& id, std::int64_t n) {
    return weft::async(weft_latch_server::count_down_action{}, id, n);
}
future<void> latch_wait(const id_type& id) { return weft::async(weft_latch_server::wait_action{}, id); }
future<bool> latch_try_wait(const id_type& id) { return weft::async(weft_latch_server::try_wait_action{}, id); }

id_type channel_create(const std::string& basename, std::uint64_t capacity) {
    return create_named<weft_channel_server>("weft::distributed::channel::create", basename, capacity);
}

future<void> channel_send(const id_type& id, std::vector<std::byte> value) {
    return weft::async(weft_channel_server::send_action{}, id, std::move(value));
}
future<std::vector<std::byte>> channel_receive(const id_type& id) {
    return weft::async(weft_channel_server::receive_action{}, id);
}
future<void> channel_close(const id_type& id) { return weft::async(weft_channel_server::close_action{}, id); }

id_type lco_connect(const char* what, const std::string& basename) {
    check_target(what, here(), true);
    return find_from_basename(basename).get();
}

lco_owner::~lco_owner() {
    // Best effort: after the runtime stopped (or the object was destroyed by hand)
    // there is nothing left to release.
    try {
        unregister_with_basename(basename).get();
    } catch (...) {
    }
    try {
        if (is_channel)
            weft::async(weft_channel_server::close_action{}, id).get();
        else
            weft::async(weft_latch_server::release_action{}, id).get();
    } catch (...) {
    }
    try {
        destroy(id).get();
    } catch (...) {
    }
}

}  // namespace weft::distributed::detail
