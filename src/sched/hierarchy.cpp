// Building locality hierarchies, HVS's and HCS's default tables and their options
// (seed 002 §3.2; see include/weft/ext/hierarchy.hpp).
#include <weft/config/errors.hpp>
#include <weft/ext/hierarchy.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>

namespace weft::ext {
namespace {

[[noreturn]] void fail(std::string_view where, std::string_view value, std::string_view accepted) {
    throw bad_option("weft: " + std::string(where) + ": '" + std::string(value) + "' is not valid; expected " +
                     std::string(accepted));
}

bool parse_unsigned(std::string_view s, unsigned& out) noexcept {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    for (;;) {
        const auto at = s.find(sep);
        parts.push_back(s.substr(0, at));
        if (at == std::string_view::npos) return parts;
        s.remove_prefix(at + 1);
    }
}

/// The level whose domains are the distinct values of key(w), numbered densely.
template <class Key>
hierarchy::level level_by(unsigned workers, level_kind kind, Key key) {
    hierarchy::level l;
    l.kind = kind;
    std::map<decltype(key(0u)), unsigned> ids;
    for (unsigned w = 0; w < workers; ++w) {
        const auto [it, added] = ids.try_emplace(key(w), static_cast<unsigned>(l.domains.size()));
        if (added) l.domains.emplace_back();
        l.domains[it->second].push_back(w);
        l.domain_of.push_back(it->second);
    }
    return l;
}

constexpr std::string_view machine_keys[] = {"nodes", "sockets", "numa", "caches", "cores"};
/// What one entry of each key is.
constexpr level_kind machine_kinds[] = {level_kind::node, level_kind::socket, level_kind::numa, level_kind::cache,
                                        level_kind::core};
constexpr std::string_view machine_accepted =
    "counts per enclosing level, outermost first, from nodes, sockets, numa, caches and cores (cores "
    "required, keys in that order, each 1 to 65536, at most 1048576 workers), e.g. sockets:2,cores:4";

/// The counts of a machine spec by key index, or an empty vector if malformed.
std::vector<unsigned> parse_machine_counts(std::string_view spec) {
    std::vector<unsigned> counts(std::size(machine_keys), 0);
    std::size_t next_key = 0;
    unsigned long long total = 1;
    if (spec.empty()) return {};
    for (std::string_view part : split(spec, ',')) {
        const auto colon = part.find(':');
        if (colon == std::string_view::npos) return {};
        const std::string_view key = part.substr(0, colon);
        std::size_t k = next_key;
        while (k < std::size(machine_keys) && machine_keys[k] != key) ++k;
        if (k == std::size(machine_keys)) return {};
        unsigned n = 0;
        if (!parse_unsigned(part.substr(colon + 1), n) || n == 0 || n > 65536) return {};
        counts[k] = n;
        total *= n;
        if (total > (1u << 20)) return {};
        next_key = k + 1;
    }
    if (counts.back() == 0) return {};
    return counts;
}

}  // namespace

std::string_view to_string(level_kind k) noexcept {
    switch (k) {
    case level_kind::core: return "core";
    case level_kind::cache: return "cache";
    case level_kind::numa: return "numa";
    case level_kind::socket: return "socket";
    case level_kind::node: return "node";
    case level_kind::cluster: return "cluster";
    case level_kind::group: return "group";
    }
    return "group";
}

void hierarchy::add_level(level l) {
    const bool trivial = std::all_of(l.domains.begin(), l.domains.end(), [](const auto& d) { return d.size() < 2; });
    if (trivial) return;
    if (!levels_.empty() && levels_.back().domains == l.domains) {
        // The same partition again: keep the outer name (a socket that is one NUMA node
        // is a socket).
        levels_.back().kind = l.kind;
        return;
    }
    levels_.push_back(std::move(l));
}

void hierarchy::finish() {
    if (!levels_.empty() && levels_.back().domains.size() == 1) return;
    level all;
    // The whole of a machine made of sockets is a node; of nodes, a cluster.
    all.kind = levels_.empty() ? level_kind::node
               : levels_.back().kind == level_kind::node || levels_.back().kind == level_kind::cluster
                   ? level_kind::cluster
               : levels_.back().kind == level_kind::group ? level_kind::group
                                                          : level_kind::node;
    all.domains.emplace_back();
    for (unsigned w = 0; w < workers_; ++w) {
        all.domains[0].push_back(w);
        all.domain_of.push_back(0);
    }
    levels_.push_back(std::move(all));
}

hierarchy hierarchy::flat(unsigned workers) {
    hierarchy h;
    h.workers_ = workers == 0 ? 1 : workers;
    h.finish();
    h.levels_.back().kind = level_kind::node;
    return h;
}

hierarchy hierarchy::groups(unsigned workers, const std::vector<unsigned>& sizes, std::string_view where) {
    hierarchy h;
    h.workers_ = workers == 0 ? 1 : workers;
    unsigned prev = 1;
    for (unsigned s : sizes) {
        if (s == 0 || s % prev != 0)
            fail(where, std::to_string(s),
                 "group sizes innermost first, each a multiple of the one before (e.g. 4,8)");
        h.add_level(level_by(h.workers_, level_kind::group, [s](unsigned w) { return w / s; }));
        prev = s;
    }
    h.finish();
    return h;
}

unsigned hierarchy::machine_workers(std::string_view spec) noexcept {
    try {
        const auto counts = parse_machine_counts(spec);
        if (counts.empty()) return 0;
        unsigned n = 1;
        for (unsigned c : counts) n *= c == 0 ? 1 : c;
        return n;
    } catch (...) {
        return 0;
    }
}

hierarchy hierarchy::parse_machine(std::string_view spec, std::string_view where) {
    const auto counts = parse_machine_counts(spec);
    if (counts.empty()) fail(where, spec, machine_accepted);
    hierarchy h;
    h.workers_ = machine_workers(spec);
    // Innermost first: one domain of key k holds the workers of every key inside it,
    // so worker w's domain there is w divided by their product.
    unsigned inside = counts.back();
    for (std::size_t k = std::size(machine_keys) - 1; k-- > 0;) {
        if (counts[k] == 0) continue;
        h.add_level(level_by(h.workers_, machine_kinds[k], [inside](unsigned w) { return w / inside; }));
        inside *= counts[k];
    }
    h.finish();  // the whole: a node of sockets, or a cluster of nodes
    return h;
}

hierarchy hierarchy::from_placement(const std::vector<placement>& ws) {
    hierarchy h;
    h.workers_ = ws.empty() ? 1 : static_cast<unsigned>(ws.size());
    if (ws.empty()) {
        h.finish();
        return h;
    }
    h.add_level(level_by(h.workers_, level_kind::core, [&](unsigned w) { return ws[w].core; }));
    h.add_level(level_by(h.workers_, level_kind::cache, [&](unsigned w) { return std::pair(ws[w].numa, ws[w].cache); }));
    h.add_level(level_by(h.workers_, level_kind::numa, [&](unsigned w) { return ws[w].numa; }));
    h.add_level(level_by(h.workers_, level_kind::socket, [&](unsigned w) { return ws[w].socket; }));
    h.finish();
    return h;
}

unsigned hierarchy::common_level(unsigned a, unsigned b) const noexcept {
    for (unsigned l = 0; l < levels_.size(); ++l)
        if (levels_[l].domain_of[a] == levels_[l].domain_of[b]) return l;
    return num_levels() - 1;
}

std::string hierarchy::describe() const {
    std::string s;
    for (const level& l : levels_) {
        std::size_t largest = 0;
        for (const auto& d : l.domains) largest = std::max(largest, d.size());
        if (!s.empty()) s += " < ";
        s += std::string(to_string(l.kind)) + "(" + std::to_string(largest) + ")";
    }
    return s;
}

steal_plan steal_plan::defaults(const hierarchy& h) {
    steal_plan p;
    const unsigned top = h.num_levels() - 1;
    bool user_defined = false;
    for (unsigned l = 0; l < h.num_levels(); ++l) user_defined |= h.at(l).kind == level_kind::group;
    for (unsigned l = 0; l < h.num_levels(); ++l) {
        if (l == top) {
            const double n = h.workers();
            p.attempts.push_back(std::max(1u, static_cast<unsigned>(std::ceil(4.0 * std::log2(n)))));
        } else {
            std::size_t largest = 0;
            for (const auto& d : h.at(l).domains) largest = std::max(largest, d.size());
            p.attempts.push_back(static_cast<unsigned>(largest));
        }
        chunk_rule c;
        switch (h.at(l).kind) {
        case level_kind::node: c.count = h.num_levels() == 1 ? 1 : 2; break;
        case level_kind::cluster: c.half = true; break;
        case level_kind::group: c.half = l == top && h.num_levels() > 1; break;
        default: c.count = 1; break;
        }
        if (user_defined && l == top && h.num_levels() > 1) c = chunk_rule{1, true};
        p.chunks.push_back(c);
    }
    return p;
}

steal_plan steal_plan::parse(const hierarchy& h, std::string_view attempts, std::string_view chunks) {
    steal_plan p = defaults(h);
    const std::string levels = std::to_string(h.num_levels());
    if (!attempts.empty() && attempts != "auto") {
        const auto parts = split(attempts, ',');
        if (parts.size() > h.num_levels())
            fail("--weft:steal-attempts", attempts,
                 "at most one count per level (" + levels + " here: " + h.describe() + "), innermost first");
        for (std::size_t l = 0; l < parts.size(); ++l) {
            if (parts[l] == "auto") continue;
            unsigned n = 0;
            if (!parse_unsigned(parts[l], n) || n > 1'000'000)
                fail("--weft:steal-attempts", attempts,
                     "'auto' or comma-separated counts per level, innermost first, each 0 to 1000000 or 'auto'");
            p.attempts[l] = n;
        }
        if (std::all_of(p.attempts.begin(), p.attempts.end(), [](unsigned a) { return a == 0; }))
            fail("--weft:steal-attempts", attempts, "at least one level with a count above 0");
    }
    if (!chunks.empty() && chunks != "auto") {
        const auto parts = split(chunks, ',');
        if (parts.size() > h.num_levels())
            fail("--weft:steal-chunk", chunks,
                 "at most one rule per level (" + levels + " here: " + h.describe() + "), innermost first");
        for (std::size_t l = 0; l < parts.size(); ++l) {
            if (parts[l] == "auto") continue;
            if (parts[l] == "half") {
                p.chunks[l] = chunk_rule{1, true};
                continue;
            }
            unsigned n = 0;
            if (!parse_unsigned(parts[l], n) || n == 0 || n > 1'000'000)
                fail("--weft:steal-chunk", chunks,
                     "'auto' or comma-separated rules per level, innermost first, each a count from 1, 'half' or 'auto'");
            p.chunks[l] = chunk_rule{n, false};
        }
    }
    return p;
}

victim_selector::victim_selector(const hierarchy& h, const steal_plan& plan, unsigned self) {
    for (unsigned l = 0; l < h.num_levels(); ++l) {
        const auto& d = h.domain(l, self);
        const unsigned a = l < plan.attempts.size() ? plan.attempts[l] : 0;
        if (d.size() < 2 || a == 0) continue;
        const auto pos = static_cast<unsigned>(std::find(d.begin(), d.end(), self) - d.begin());
        steps_.push_back({&d, pos, l, a});
        round_ += a;
    }
}

}  // namespace weft::ext
