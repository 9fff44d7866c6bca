// Must not compile: serializing a type the archive cannot handle. The test that builds
// this expects the compiler to name the type (type_is_not_serializable<...>) and say what
// would make it serializable. One case per WEFT_CASE_* definition.
#include <weft/distributed/serialization.hpp>

#include <string_view>

namespace user {
struct opaque {  // not trivially copyable, no serialize
    opaque() = default;
    opaque(const opaque&) {}
    int hidden = 0;
};
}  // namespace user

void not_serializable() {
    weft::serialization::output_archive ar;
#if defined(WEFT_CASE_opaque)
    ar(user::opaque{});
#elif defined(WEFT_CASE_string_view)
    ar(std::string_view("its bytes point into this process"));
#elif defined(WEFT_CASE_pointer)
    int x = 0;
    ar(&x);
#endif
}
