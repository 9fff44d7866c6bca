// weft::shared_mutex (see include/weft/lcos/shared_mutex.hpp).
#include <weft/lcos/shared_mutex.hpp>

#include <mutex>
#include <string>

namespace weft {

bool shared_mutex::try_lock() noexcept {
    const detail::agent_id me = detail::current_agent_id();
    std::lock_guard g(lock_);
    if (!admissible(exclusive) || !waiters_.empty()) return false;
    enter(exclusive, me);
    return true;
}

bool shared_mutex::try_lock_shared() noexcept {
    const detail::agent_id me = detail::current_agent_id();
    std::lock_guard g(lock_);
    if (!admissible(shared) || !waiters_.empty()) return false;
    enter(shared, me);
    return true;
}

bool shared_mutex::acquire(std::uintptr_t kind, const detail::steady_time* deadline) {
    detail::agent_id me = detail::current_agent_id();
    detail::wait_node node(deadline);
    node.tag = kind;
    node.slot = &me;  // admit() records us as a holder from it
    const char* misuse = nullptr;
    {
        std::lock_guard g(lock_);
        // Nobody overtakes a queued waiter: that is what keeps writers from starving.
        if (admissible(kind) && waiters_.empty()) {
            enter(kind, me);
            return true;
        }
        // We would wait. For what we hold ourselves, only a deadline could end that.
        if (deadline == nullptr) misuse = conflict(kind, me.agent);
        if (misuse == nullptr) {
            if (deadline != nullptr && std::chrono::steady_clock::now() >= *deadline) return false;
            node.reason = {detail::wait_kind::shared_mutex, this, holder_for_report()};
            waiters_.push_back(node);
        }
    }
    if (misuse != nullptr)
        detail::throw_lco_error(std::errc::resource_deadlock_would_occur,
                                kind == exclusive ? "shared_mutex::lock" : "shared_mutex::lock_shared",
                                std::string("the calling ") + detail::caller_kind() + misuse);
    if (node.block() == detail::wait_status::notified) return true;  // admitted by admit()
    // Timed out. If we were at the front, the waiters behind us may fit now (a reader
    // behind a writer that gave up, while readers hold the lock).
    detail::wake_list woken;
    std::lock_guard g(lock_);
    if (node.linked()) {
        waiters_.remove(node);
        admit(woken);
    }
    return false;
}

const char* shared_mutex::conflict(std::uintptr_t kind, const void* me) noexcept {
    if (writer_ && writer_agent_ == me) return " holds this shared_mutex exclusively; it would wait for itself";
    if (find_reader(me) == nullptr) return nullptr;
    return kind == exclusive ? " holds this shared_mutex shared (lock_shared()); lock() would wait for itself"
                             : " holds this shared_mutex shared and a writer waits, which waits for the caller; "
                               "lock_shared() would queue behind it and wait forever";
}

void shared_mutex::unlock() {
    const void* me = detail::current_agent();
    std::uint64_t holder = 0;
    {
        detail::wake_list woken;
        std::lock_guard g(lock_);
        if (writer_ && writer_agent_ == me) {
            writer_ = false;
            writer_agent_ = nullptr;
            writer_holder_ = 0;
            admit(woken);
            return;
        }
        holder = writer_ ? writer_holder_ : 0;
    }
    std::string what = std::string("the calling ") + detail::caller_kind() + " does not hold this shared_mutex exclusively";
    if (holder != 0) what += std::string(" (") + detail::describe_holder(holder).text + " does)";
    detail::throw_lco_error(std::errc::operation_not_permitted, "shared_mutex::unlock", what);
}

void shared_mutex::unlock_shared() {
    const void* me = detail::current_agent();
    std::size_t readers = 0;
    {
        detail::wake_list woken;
        std::lock_guard g(lock_);
        reader_record* r = find_reader(me);
        // A reader without a record is taken to be one of the untracked ones.
        if (r != nullptr || untracked_ != 0) {
            if (r == nullptr) --untracked_;
            else if (--r->count == 0) *r = reader_record{};
            if (--readers_ == 0) admit(woken);
            return;
        }
        readers = readers_;
    }
    std::string what = std::string("the calling ") + detail::caller_kind() + " does not hold this shared_mutex shared";
    if (readers == 0) what += " (no reader does)";
    detail::throw_lco_error(std::errc::operation_not_permitted, "shared_mutex::unlock_shared", what);
}

void shared_mutex::enter(std::uintptr_t kind, const detail::agent_id& who) noexcept {
    if (kind == exclusive) {
        writer_ = true;
        writer_agent_ = who.agent;
        writer_holder_ = who.holder;
        return;
    }
    ++readers_;
    reader_record* free = nullptr;
    for (reader_record& r : tracked_) {
        if (r.agent == who.agent) {
            ++r.count;
            return;
        }
        if (r.agent == nullptr && free == nullptr) free = &r;
    }
    if (free != nullptr) *free = reader_record{who.agent, who.holder, 1};
    else ++untracked_;
}

shared_mutex::reader_record* shared_mutex::find_reader(const void* agent) noexcept {
    for (reader_record& r : tracked_)
        if (r.agent == agent) return &r;
    return nullptr;
}

std::uint64_t shared_mutex::holder_for_report() const noexcept {
    // Only the front waiter is admitted when the holder leaves: one behind others names
    // nobody, as for weft::mutex.
    if (!waiters_.empty()) return 0;
    if (writer_) return writer_holder_;
    if (readers_ != 1 || untracked_ != 0) return 0;  // several could
    for (const reader_record& r : tracked_)
        if (r.agent != nullptr) return r.holder;
    return 0;
}

void shared_mutex::admit(detail::wake_list& woken) noexcept {
    while (detail::wait_node* n = waiters_.front()) {
        if (!admissible(n->tag)) return;
        waiters_.remove(*n);
        if (!n->try_claim()) continue;  // it timed out: skip it
        // Claimed: its waiter stays blocked until woken, so its agent_id is still there.
        enter(n->tag, *static_cast<const detail::agent_id*>(n->slot));
        woken.push(*n);
    }
}

void shared_mutex::destroyed_in_use() const noexcept {
    const void* me = detail::current_agent();
    if (writer_) detail::lco_destroyed_in_use("shared_mutex", "locked", writer_holder_, writer_agent_ == me);
    if (readers_ != 0) {
        bool only_caller = false;  // the one reader, and the caller
        for (const reader_record& r : tracked_) only_caller = only_caller || (r.agent == me && readers_ == 1);
        detail::lco_destroyed_in_use("shared_mutex", "locked shared", holder_for_report(), only_caller);
    }
    detail::lco_destroyed_in_use("shared_mutex", "tasks or threads wait on it");
}

}  // namespace weft
