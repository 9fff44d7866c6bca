// Test support: a command line built from strings, as main() would receive it
// (argv[argc] == nullptr), for the runtime's option parsing.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weft::test {

struct args {
    std::vector<std::string> storage;
    std::vector<char*> ptrs;
    int argc = 0;
    explicit args(std::vector<std::string> a) : storage(std::move(a)) {
        for (auto& s : storage) ptrs.push_back(s.data());
        ptrs.push_back(nullptr);
        argc = static_cast<int>(storage.size());
    }
    /// The arguments left after parsing removed some (the first argc of them).
    std::vector<std::string> left() const { return {ptrs.begin(), ptrs.begin() + argc}; }
};

}  // namespace weft::test
