// weft::future_error: std::future_error with messages that say what happened.
#pragma once

#include <future>
#include <string>

namespace weft {

/// Thrown on misuse of futures and promises. A std::future_error (catch either), with
/// the std::future_errc code and a message that says what went wrong in weft's terms.
class future_error : public std::future_error {
public:
    explicit future_error(std::future_errc code) : std::future_error(code), message_(describe(code)) {}
    /// As above, the message preceded by `where` (the call and the argument at fault).
    future_error(std::future_errc code, const std::string& where)
        : std::future_error(code), message_(where + ": " + describe(code)) {}
    const char* what() const noexcept override { return message_.c_str(); }

private:
    static std::string describe(std::future_errc code) {
        switch (code) {
            case std::future_errc::broken_promise:
                return "weft::future_error (broken_promise): the promise or packaged_task was destroyed "
                       "without setting a value or an exception";
            case std::future_errc::future_already_retrieved:
                return "weft::future_error (future_already_retrieved): get_future() was already called on "
                       "this promise or packaged_task";
            case std::future_errc::promise_already_satisfied:
                return "weft::future_error (promise_already_satisfied): a value or exception was already "
                       "set (or the packaged_task already ran)";
            case std::future_errc::no_state:
                return "weft::future_error (no_state): this future, promise or packaged_task has no "
                       "shared state (default-constructed, moved from, or already consumed by get())";
        }
        return "weft::future_error";
    }
    std::string message_;
};

}  // namespace weft
