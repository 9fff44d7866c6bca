// The checks of the programs tests/distributed runs under mpirun: CHECK counts a failure
// and names the locality and the line (the program then exits non-zero: each returns
// weft_test::failures); thrown<E>(f) runs f and gives the message of the E it threw (an
// exception of another type is printed and counts as none).
#pragma once

#include <weft/distributed.hpp>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <typeinfo>

namespace weft_test {

inline int failures = 0;

template <class E, class F>
std::optional<std::string> thrown(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return std::string(e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locality %u: unexpected exception %s: %s\n", weft::get_locality_id(), typeid(e).name(),
                     e.what());
    }
    return std::nullopt;
}

}  // namespace weft_test

#define CHECK(cond)                                                                                            \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            std::fprintf(stderr, "locality %u: check failed at line %d: %s\n", weft::get_locality_id(), __LINE__, \
                         #cond);                                                                               \
            ++::weft_test::failures;                                                                           \
        }                                                                                                      \
    } while (false)
