// The exceptions weft throws, so that callers can tell misuse of weft from their own errors.
#pragma once

#include <stdexcept>
#include <exception>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace weft {

/// Base of every exception weft throws for misuse or an impossible request.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A call that needs a running weft runtime was made without one, or a second
/// runtime was started while one is running.
class runtime_state_error : public error {
public:
    using error::error;
};

/// A malformed or unknown --weft: option or WEFT_* environment variable. The message
/// names the option and what it accepts.
class bad_option : public error {
public:
    using error::error;
};

/// Misuse of a local control object (weft/lcos) that std leaves undefined or reports
/// with a std::system_error: unlocking a mutex the caller does not hold, locking one it
/// already holds, counting a latch down past zero, arriving at a barrier more often than
/// expected, releasing a semaphore past max(). The message names the object and the
/// misuse; code() classifies it as std would: operation_not_permitted (unlock by a
/// non-owner), resource_deadlock_would_occur (a lock that could never be granted),
/// invalid_argument (a count out of range), value_too_large (a semaphore overflow).
class lco_error : public error {
public:
    lco_error(std::errc code, const std::string& what) : error(what), code_(std::make_error_code(code)) {}
    const std::error_code& code() const noexcept { return code_; }

private:
    std::error_code code_;
};

/// Thrown by task_group::wait when more than one of its tasks threw, and by the parallel
/// algorithms when element functions threw: holds every exception, in the order they
/// were caught.
class exception_list : public error {
public:
    explicit exception_list(std::vector<std::exception_ptr> list)
        : error(std::to_string(list.size()) + " tasks of a weft::task_group threw"),
          list_(std::move(list)) {}
    /// With a message of the thrower's own.
    exception_list(std::vector<std::exception_ptr> list, const std::string& what)
        : error(what), list_(std::move(list)) {}
    const std::vector<std::exception_ptr>& exceptions() const noexcept { return list_; }
    std::size_t size() const noexcept { return list_.size(); }

private:
    std::vector<std::exception_ptr> list_;
};

}  // namespace weft
