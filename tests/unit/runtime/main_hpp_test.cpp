// <weft/main.hpp>: this file's main is an ordinary main, unchanged, and runs as weft's
// first task. Options: --return=N (return N), --expect-stack=BYTES (main's stack is at
// least that: 8M by default), --expect-words=W1,W2 (argv after the program name, the
// --weft: options gone). Prints each failed check and returns 1; falls off its end
// otherwise (exit code 0, as C++ promises for main).
#include <weft/main.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

std::uint64_t fib(unsigned n) {
    if (n < 2) return n;
    weft::future<std::uint64_t> a = weft::async(fib, n - 1);
    return fib(n - 2) + a.get();
}

// Touches `bytes` of the stack, as a ported program's large local arrays do.
__attribute__((noinline)) unsigned touch_stack(std::size_t kib) {
    if (kib == 0) return 0;
    volatile char page[1024];
    std::memset(const_cast<char*>(page), static_cast<int>(kib & 0x7f), sizeof page);
    return page[kib % sizeof page] + touch_stack(kib - 1);
}

}  // namespace

int main(int argc, char** argv) {
    int failures = 0;
    auto check = [&failures](bool ok, const std::string& what) {
        if (!ok) {
            std::fprintf(stderr, "main_hpp_test: FAILED: %s\n", what.c_str());
            ++failures;
        }
    };
    int ret = 0;
    std::size_t expect_stack = std::size_t{8} << 20;
    std::string words;
    std::string expect_words;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        check(a.substr(0, 7) != "--weft:", "a --weft: option reached main: " + std::string(a));
        if (a.substr(0, 9) == "--return=") ret = std::atoi(argv[i] + 9);
        else if (a.substr(0, 15) == "--expect-stack=") expect_stack = std::strtoull(argv[i] + 15, nullptr, 10);
        else if (a.substr(0, 15) == "--expect-words=") expect_words = a.substr(15);
        else {
            if (!words.empty()) words += ',';
            words += a;
        }
    }
    if (!expect_words.empty()) check(words == expect_words, "argv words '" + words + "', expected '" + expect_words + "'");
    check(argv[argc] == nullptr, "argv[argc] is not null");

    check(weft::this_task::get_id() != weft::task_id{}, "main does not run as a weft task");
    const char* name = weft::this_task::get_name();
    check(name != nullptr && std::string_view(name) == "main", "main's task is not named main");
    const std::size_t stack = weft::this_task::stack_size();
    check(stack >= expect_stack, "main's stack is " + std::to_string(stack) + " bytes, expected at least " +
                                     std::to_string(expect_stack));
    // Usable: 3/16 of it in frames of a little over 1 KiB (well past the runtime's task
    // stacks, and within reach under ASan, whose frames are larger).
    (void)touch_stack(expect_stack / 1024 * 3 / 16);
    check(fib(20) == 6765, "fib(20) from main's tasks");

    if (failures != 0) return 1;
    if (ret != 0) return ret;
}
