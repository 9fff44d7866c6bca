// How weft's local control objects report misuse that std leaves undefined: a
// weft::lco_error that names the object and the misuse, or, from a destructor (which
// cannot throw), a message that names them, then an abort.
#pragma once

#include <weft/config/errors.hpp>
#include <weft/sched/detail/suspend.hpp>
#include <weft/threads/task.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

namespace weft::detail {

/// Room for describe_holder().
struct holder_text {
    char text[112];
};

/// A holder id (wait_reason::holder) in the deadlock report's words: "task 'name'
/// (id N)" when it is the calling task (or `is_caller`) and that has a name, else
/// "task #N"; "a thread outside weft"; "a task or thread weft cannot name" for 0.
inline holder_text describe_holder(std::uint64_t holder, bool is_caller = false) noexcept {
    holder_text h{};
    const task* me = current_task();
    if (is_caller) holder = me != nullptr ? me->id : holder_outside_thread;
    if (is_caller && me != nullptr) {
        if (me->name != nullptr) {
            std::snprintf(h.text, sizeof h.text, "task '%.60s' (id %llu)", me->name, static_cast<unsigned long long>(holder));
        } else {
            std::snprintf(h.text, sizeof h.text, "task #%llu", static_cast<unsigned long long>(holder));
        }
    } else if (holder == holder_outside_thread) {
        std::snprintf(h.text, sizeof h.text, "a thread outside weft");
    } else if (holder == 0) {
        std::snprintf(h.text, sizeof h.text, "a task or thread weft cannot name");
    } else if (me != nullptr && me->id == holder && me->name != nullptr) {
        std::snprintf(h.text, sizeof h.text, "task '%.60s' (id %llu)", me->name, static_cast<unsigned long long>(holder));
    } else {
        std::snprintf(h.text, sizeof h.text, "task #%llu", static_cast<unsigned long long>(holder));
    }
    return h;
}

/// "task" or "thread": what the caller is, for messages.
inline const char* caller_kind() noexcept { return current_task() != nullptr ? "task" : "thread"; }

/// Throws lco_error(code, "weft::<where>: <what>").
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_lco_error(std::errc code, const char* where,
                                                                   const std::string& what) {
    throw lco_error(code, std::string("weft::") + where + ": " + what);
}

/// What a destructor does that finds its object in use: prints "weft: a weft::<type>
/// was destroyed while <state>", with " by <holder>" when `holder` is not 0 or
/// `by_caller` (the destroying task or thread holds it), and aborts.
[[noreturn, gnu::noinline, gnu::cold]] inline void lco_destroyed_in_use(const char* type, const char* state,
                                                                        std::uint64_t holder = 0,
                                                                        bool by_caller = false) noexcept {
    std::fflush(stdout);
    if (holder != 0 || by_caller) {
        std::fprintf(stderr, "weft: a weft::%s was destroyed while %s by %s\n", type, state,
                     describe_holder(holder, by_caller).text);
    } else {
        std::fprintf(stderr, "weft: a weft::%s was destroyed while %s\n", type, state);
    }
    std::fflush(stderr);
    std::abort();
}

}  // namespace weft::detail
