// Glob matching of counter patterns, and the names closest to one that matches nothing.
#include "registry.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace weft::counters::detail {

bool glob(std::string_view p, std::string_view s) {
    std::size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
    while (si < s.size()) {
        if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
            ++pi;
            ++si;
        } else if (pi < p.size() && p[pi] == '*') {
            star = pi++;
            mark = si;
        } else if (star != std::string_view::npos) {
            pi = star + 1;
            si = ++mark;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
}

bool has_wildcard(std::string_view s) { return s.find_first_of("*?") != std::string_view::npos; }

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string closest(std::string_view name, const std::vector<counter_info>& all) {
    std::vector<std::pair<std::size_t, const std::string*>> scored;
    for (const auto& i : all) scored.emplace_back(edit_distance(name, i.name), &i.name);
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string s;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) s += (i ? ", " : "") + *scored[i].second;
    return s;
}

}  // namespace weft::counters::detail
