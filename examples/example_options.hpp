// The command-line options of weft's examples, parsed as strictly as the runtime parses
// its own: an unknown option, or a value that is missing, malformed or out of range,
// prints one line naming the option and what it accepts and exits with code 2; --help
// prints the usage and exits with code 0. The --weft: options are the runtime's.
#pragma once

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::examples {

/// An example's options, each `--name=VALUE`. Parse before starting the runtime (so
/// that --help and a bad option start no workers); the --weft: options before a "--"
/// are left for the runtime, which checks them.
///
/// @code
/// unsigned n = 30;
/// weft::examples::options opts("weft_demo", "fib and a random spawn tree");
/// opts.number("--fib", n, 0u, 92u, "fib(N) to compute");
/// opts.parse(argc, argv);  // exits with 2 (bad option) or 0 (--help)
/// @endcode
class options {
public:
    options(std::string program, std::string about) : program_(std::move(program)), about_(std::move(about)) {}

    /// `--name=N`: a whole number from `min` to `max` (decimal, no sign or spaces).
    template <class Int>
    options& number(const char* name, Int& value, Int min, Int max, const char* help) {
        const std::string accepted = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
        add(name, "N", accepted, std::to_string(value), help, [&value, min, max](std::string_view v) {
            long long n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (v.empty() || ec != std::errc{} || end != v.data() + v.size()) return false;
            if (n < static_cast<long long>(min) || n > static_cast<long long>(max)) return false;
            value = static_cast<Int>(n);
            return true;
        });
        return *this;
    }

    /// `--name=WORD`, one of `words`.
    options& word(const char* name, std::string& value, const std::vector<std::string>& words, const char* help) {
        std::string accepted = "one of";
        for (std::size_t i = 0; i < words.size(); ++i) accepted += (i == 0 ? " " : ", ") + words[i];
        add(name, "WORD", accepted, value.empty() ? "none" : value, help, [&value, words](std::string_view v) {
            for (const std::string& w : words)
                if (v == w) {
                    value = w;
                    return true;
                }
            return false;
        });
        return *this;
    }

    /// Parses argv[1..argc): sets the values given, exits with code 2 on a bad option
    /// and with code 0 after printing the usage for --help (or -h).
    void parse(int argc, char** argv) const {
        bool after_dashes = false;
        for (int i = 1; i < argc; ++i) {
            const std::string_view arg = argv[i];
            if (!after_dashes && arg.starts_with("--weft:")) continue;  // the runtime's
            if (!after_dashes && arg == "--") {
                after_dashes = true;
                continue;
            }
            if (arg == "--help" || arg == "-h") {
                usage();
                std::exit(0);
            }
            const std::string_view name = arg.substr(0, arg.find('='));
            const option* o = after_dashes || !arg.starts_with("--") ? nullptr : find(name);
            if (o == nullptr) {
                std::string known;
                for (const option& k : options_) known += k.name + ", ";
                fail(std::string(arg.starts_with("--") && !after_dashes ? "unknown option '" : "unexpected argument '") +
                     std::string(arg) + "'" + (after_dashes ? " after '--'" : "") + "; known options: " + known +
                     "--help, and the runtime's --weft: options (see --weft:help)");
            }
            if (name.size() == arg.size())
                fail("option " + o->name + " needs a value: " + o->name + "=" + o->metavar + ", " + o->accepted);
            const std::string_view value = arg.substr(name.size() + 1);
            if (!o->set(value))
                fail("bad value '" + std::string(value) + "' for " + o->name + ": expected " + o->accepted);
        }
    }

    /// Prints "<program>: <message>" as one line and exits with code 2: for a check that
    /// involves several options.
    [[noreturn]] void fail(const std::string& message) const {
        std::fprintf(stderr, "%s: %s\n", program_.c_str(), message.c_str());
        std::exit(2);
    }

private:
    struct option {
        std::string name;
        std::string metavar;
        std::string accepted;
        std::string fallback;
        std::string help;
        std::function<bool(std::string_view)> set;
    };

    void add(const char* name, const char* metavar, std::string accepted, std::string fallback, const char* help,
             std::function<bool(std::string_view)> set) {
        options_.push_back({name, metavar, std::move(accepted), std::move(fallback), help, std::move(set)});
    }

    const option* find(std::string_view name) const {
        for (const option& o : options_)
            if (o.name == name) return &o;
        return nullptr;
    }

    void usage() const {
        std::printf("usage: %s [options] [--weft:OPTION...]\n%s\n\noptions:\n", program_.c_str(), about_.c_str());
        for (const option& o : options_)
            std::printf("  %s=%s  %s: %s (default %s)\n", o.name.c_str(), o.metavar.c_str(), o.help.c_str(),
                        o.accepted.c_str(), o.fallback.c_str());
        std::printf("  --help  this text\nthe runtime's options: --weft:help\n");
    }

    std::string program_;
    std::string about_;
    std::vector<option> options_;
};

}  // namespace weft::examples
