// The tuning history file (--weft:adapt-history): the program and keys a measurement is
// filed under, and reading the file back for a warm start.
#include <weft/adapt/policy.hpp>

#include "history.hpp"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace weft::adapt::detail {

std::string program_name() {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "program";
    const std::string path(buf, static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<history_line> read_history(const std::string& path) {
    std::vector<history_line> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        history_line h;
        std::string v, o;
        if (!std::getline(fields, h.program, '\t') || !std::getline(fields, h.key, '\t') ||
            !std::getline(fields, h.domain, '\t') || !std::getline(fields, v, '\t') || !std::getline(fields, o))
            continue;  // a torn or foreign line: skipped, never fatal
        try {
            std::size_t used = 0;
            h.value = std::stod(v, &used);
            if (used != v.size()) continue;
            h.objective = o == "inf" ? std::numeric_limits<double>::infinity() : std::stod(o);
        } catch (...) {
            continue;
        }
        if (!std::isfinite(h.value)) continue;
        out.push_back(std::move(h));
    }
    return out;
}

std::string domain_key(const domain& d) {
    std::ostringstream s;
    s.precision(17);
    switch (d.type()) {
        case domain::kind::integers: s << "integers"; break;
        case domain::kind::ordered: s << "ordered"; break;
        case domain::kind::continuous: s << "continuous"; break;
    }
    s << '[' << d.size() << ':' << d.value_at(d.coord_lo()) << ".." << d.value_at(d.coord_hi()) << ']';
    return s.str();
}

}  // namespace weft::adapt::detail
