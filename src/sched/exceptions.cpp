// Exceptions nobody can receive: an unhandled one in a task (reported, then abort) and
// one a task_group must drop while it is destroyed during unwinding (reported).
#include <weft/sched/detail/exceptions.hpp>

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace weft::detail {

namespace {
// "type: what" of the exception being handled, for messages.
std::string describe_current_exception() {
    const std::type_info* type = abi::__cxa_current_exception_type();
    int status = 0;
    char* demangled = type != nullptr ? abi::__cxa_demangle(type->name(), nullptr, nullptr, &status) : nullptr;
    std::string text = demangled != nullptr ? demangled : (type != nullptr ? type->name() : "unknown exception");
    std::free(demangled);
    try {
        throw;
    } catch (const std::exception& e) {
        text += std::string(": ") + e.what();
    } catch (...) {
    }
    return text;
}
}  // namespace

[[noreturn]] void terminate_on_unhandled_exception(const task* t) noexcept {
    char name[64];
    if (t != nullptr && t->name != nullptr) std::snprintf(name, sizeof name, "'%s'", t->name);
    else std::snprintf(name, sizeof name, "#%llu", static_cast<unsigned long long>(t ? t->id : 0));
    std::string what;
    try {
        what = describe_current_exception();
    } catch (...) {
        what = "(could not describe it)";
    }
    std::fflush(stdout);
    std::fprintf(stderr, "weft: unhandled exception in task %s: %s\n", name, what.c_str());
    std::abort();
}

void report_discarded_exception(const char* why) noexcept {
    try {
        const std::string what = describe_current_exception();
        std::fprintf(stderr, "weft: %s; discarded: %s\n", why, what.c_str());
    } catch (...) {
        std::fprintf(stderr, "weft: %s; discarded an exception\n", why);
    }
}


}  // namespace weft::detail
