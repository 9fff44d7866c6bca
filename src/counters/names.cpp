// Counter names: every instance of this locality, and parsing a name or pattern (with its
// /arithmetics/ derivations) into the entries it denotes here, with an error that says why
// not. Another locality's names are valid and denote nothing here: it evaluates them, and
// other_localities() says which ones to ask.
#include "registry.hpp"

#include "perf_events.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace weft::counters::detail {
namespace {

[[noreturn]] void bad_name(std::string_view name, const std::string& why) {
    throw bad_counter_name("weft: counter '" + std::string(name) + "': " + why);
}

// A name's locality when it has a wildcard.
constexpr std::uint32_t any_locality = std::numeric_limits<std::uint32_t>::max();

struct normalized {
    std::string name;        // the instance filled in
    std::uint32_t locality;  // any_locality: a wildcard in it
};

// `num` as a canonical decimal number (digits only, no leading zeros, under 9 digits), or -1.
long canonical_number(std::string_view num) {
    bool ok = !num.empty() && num.size() < 9 && (num.size() == 1 || num[0] != '0');
    for (char ch : num) ok = ok && ch >= '0' && ch <= '9';
    return ok ? std::stol(std::string(num)) : -1;
}

// Checks the shape /OBJECT{locality#L/INSTANCE}/COUNTER (or /OBJECT/COUNTER) and returns
// the name with the instance filled in (this locality's total when absent). A worker
// number is checked against `workers` where the name can only be this locality's.
normalized normalize(std::string_view name, unsigned workers) {
    const std::uint32_t here = locality_here();
    const std::uint32_t count = locality_count();
    const std::string expected =
        "expected /OBJECT{locality#L/INSTANCE}/COUNTER with INSTANCE 'total' or 'worker-thread#N', e.g. " +
        instance_name("threads", -1, "idle-rate") + " (see --weft:list-counters)";
    if (name.empty() || name[0] != '/') bad_name(name, "a counter name starts with '/'; " + expected);
    const std::size_t brace = name.find('{');
    const std::size_t slash = name.find('/', 1);
    if (brace == std::string_view::npos || (slash != std::string_view::npos && slash < brace)) {
        if (slash == std::string_view::npos || slash + 1 >= name.size()) bad_name(name, expected);
        if (name.find('}') != std::string_view::npos) bad_name(name, "unbalanced braces; " + expected);
        return {std::string(name.substr(0, slash)) + "{" + locality_name(here) + "/total}" +
                    std::string(name.substr(slash)),
                here};
    }
    const std::size_t close = name.find('}', brace);
    if (close == std::string_view::npos) bad_name(name, "'{' without '}'; " + expected);
    if (brace == 1) bad_name(name, "no object before '{'; " + expected);
    if (close + 1 >= name.size() || name[close + 1] != '/' || close + 2 >= name.size())
        bad_name(name, "no counter after '}'; " + expected);
    const std::string_view inside = name.substr(brace + 1, close - brace - 1);
    const std::size_t sep = inside.find('/');
    if (sep == std::string_view::npos) bad_name(name, "the instance needs locality#L/INSTANCE; " + expected);
    const std::string_view loc = inside.substr(0, sep);
    const std::string_view inst = inside.substr(sep + 1);
    if (!loc.starts_with("locality#")) bad_name(name, "'" + std::string(loc) + "' is not locality#L; " + expected);
    std::uint32_t locality = any_locality;
    if (!has_wildcard(loc)) {
        const long k = canonical_number(loc.substr(9));
        if (k < 0)
            bad_name(name, "'" + std::string(loc) + "' is not locality#L with a number L (no leading zeros); " +
                               expected);
        if (static_cast<unsigned long>(k) >= count) {
            if (count == 1)
                bad_name(name, "this run has one locality, locality#0 ('" + std::string(loc) +
                                   "' exists only in distributed runs)");
            bad_name(name, "this run has " + std::to_string(count) + " localities: locality#0 to locality#" +
                               std::to_string(count - 1) + " (no '" + std::string(loc) + "')");
        }
        locality = static_cast<std::uint32_t>(k);
    }
    if (!has_wildcard(inst)) {
        if (inst.starts_with("worker-thread#")) {
            const long v = canonical_number(inst.substr(14));
            if (v < 0)
                bad_name(name, "'" + std::string(inst) +
                                   "' is not worker-thread#N with a number N (no leading zeros); " + expected);
            // Another locality may have more workers than this one.
            if (static_cast<unsigned long>(v) >= workers && (locality == here || count == 1))
                bad_name(name, "this run has " + std::to_string(workers) + " worker(s): worker-thread#0 to worker-thread#" +
                                   std::to_string(workers - 1));
        } else if (inst != "total") {
            bad_name(name, "unknown instance '" + std::string(inst) + "'; " + expected);
        }
    }
    return {std::string(name), locality};
}

// A normalized name or pattern with this locality in place of its own and worker-thread#0
// in place of a worker number: the instance of the same counter here (every locality has
// the same counters, and one worker at least).
std::string as_here(std::string_view n) {
    const std::size_t brace = n.find('{');
    const std::size_t sep = n.find('/', brace);
    const std::size_t close = n.find('}', sep);
    std::string_view inst = n.substr(sep + 1, close - sep - 1);
    if (inst.starts_with("worker-thread#") && !has_wildcard(inst)) inst = "worker-thread#0";
    return std::string(n.substr(0, brace + 1)) + locality_name(locality_here()) + "/" + std::string(inst) +
           std::string(n.substr(close));
}

// Whether a name or pattern that denotes no instance here denotes some on another locality
// (which evaluates them itself).
bool on_other_locality(const normalized& n, const std::vector<counter_info>& all) {
    const std::uint32_t here = locality_here();
    const std::uint32_t count = locality_count();
    if (count == 1 || n.locality == here) return false;
    if (n.locality == any_locality) {
        const std::size_t brace = n.name.find('{');
        const std::string_view loc = std::string_view(n.name).substr(brace + 1, n.name.find('/', brace) - brace - 1);
        bool some = false;
        for (std::uint32_t k = 0; k < count && !some; ++k) some = k != here && glob(loc, locality_name(k));
        if (!some) return false;
    }
    const std::string local = as_here(n.name);
    return std::any_of(all.begin(), all.end(), [&](const counter_info& i) { return glob(local, i.name); });
}

}  // namespace

std::vector<counter_info> all_counters(unsigned workers) {
    std::vector<counter_info> v;
    for (const auto& d : definitions) {
        v.push_back({instance_name(d.object, -1, d.path), std::string(d.unit), std::string(d.help)});
        if (d.per_worker)
            for (unsigned w = 0; w < workers; ++w)
                v.push_back({instance_name(d.object, static_cast<int>(w), d.path), std::string(d.unit),
                             std::string(d.help)});
    }
    for (const auto& k : weft::detail::perf_event_kinds()) {
        v.push_back({instance_name("hardware", -1, k.name), k.unit, k.help});
        for (unsigned w = 0; w < workers; ++w)
            v.push_back({instance_name("hardware", static_cast<int>(w), k.name), k.unit, k.help});
    }
    return v;
}

namespace {

// Parses "/hardware{...}/KIND" or "/OBJECT{...}/PATH" (normalized, exact) into an entry.
bool resolve_exact(const std::string& name, unsigned workers, entry& e) {
    const std::size_t brace = name.find('{');
    const std::size_t close = name.find('}');
    const std::string_view object = std::string_view(name).substr(1, brace - 1);
    const std::string_view inside = std::string_view(name).substr(brace + 1, close - brace - 1);
    const std::string_view inst = inside.substr(inside.find('/') + 1);
    const std::string_view path = std::string_view(name).substr(close + 2);
    int worker = -1;
    if (inst != "total") worker = std::stoi(std::string(inst.substr(14)));
    if (worker >= static_cast<int>(workers)) return false;
    e.name = name;
    e.worker = worker;
    if (object == "hardware") {
        const auto kinds = weft::detail::perf_event_kinds();
        for (std::size_t k = 0; k < kinds.size(); ++k)
            if (path == kinds[k].name) {
                e.kind = entry::hardware;
                e.index = k;
                e.unit = kinds[k].unit;
                return true;
            }
        return false;
    }
    for (std::size_t k = 0; k < std::size(definitions); ++k) {
        const auto& d = definitions[k];
        if (d.object == object && d.path == path && (d.per_worker || worker < 0)) {
            e.kind = entry::basic;
            e.index = k;
            e.unit = d.unit;
            return true;
        }
    }
    return false;
}

std::vector<std::string> split_args(std::string_view s) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char ch : s) {
        if (ch == '{') ++depth;
        if (ch == '}') --depth;
        if (ch == ',' && depth == 0) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += ch;
        }
    }
    out.push_back(cur);
    return out;
}

// The entry of a name of this locality; none for a name of another locality.
struct resolved {
    std::optional<entry> e;
    std::uint32_t locality;
};

resolved resolve_one(std::string_view name, unsigned workers, const std::vector<counter_info>& all);

resolved resolve_arithmetic(std::string_view name, unsigned workers, const std::vector<counter_info>& all) {
    const std::string_view rest = name.substr(std::string_view("/arithmetics/").size());
    const std::size_t at = rest.find('@');
    std::string ops;
    for (auto o : arithmetic_ops) ops += (ops.empty() ? "" : ", ") + std::string(o);
    if (at == std::string_view::npos)
        bad_name(name, "a derived counter is /arithmetics/OP@A,B (OP one of " + ops + "; per-core takes one name)");
    const std::string_view op = rest.substr(0, at);
    std::size_t opi = std::size(arithmetic_ops);
    for (std::size_t i = 0; i < std::size(arithmetic_ops); ++i)
        if (arithmetic_ops[i] == op) opi = i;
    if (opi == std::size(arithmetic_ops)) bad_name(name, "unknown operation '" + std::string(op) + "'; one of " + ops);
    const auto args = split_args(rest.substr(at + 1));
    const std::size_t want = op == "per-core" ? 1 : 2;
    if (args.size() != want)
        bad_name(name, std::string(op) + " takes " + std::to_string(want) + " counter name(s), got " +
                           std::to_string(args.size()));
    entry e;
    e.kind = entry::arithmetic;
    e.index = opi;
    e.name = std::string(name);
    std::optional<std::uint32_t> where;
    for (const auto& a : args) {
        if (has_wildcard(a)) bad_name(name, "the operands of a derived counter cannot have wildcards");
        resolved r = resolve_one(a, workers, all);
        if (where && *where != r.locality)
            bad_name(name, "the operands of a derived counter must be counters of one locality");
        where = r.locality;
        if (r.e) e.operands.push_back(std::move(*r.e));
    }
    // Another locality's operands: that locality evaluates it.
    if (*where != locality_here()) return {std::nullopt, *where};
    // Printed beside other localities' values (gather_at_exit), the name says whose it is.
    if (locality_count() > 1) {
        e.name = "/arithmetics/" + std::string(op) + "@";
        for (std::size_t i = 0; i < e.operands.size(); ++i) e.name += (i ? "," : "") + e.operands[i].name;
    }
    e.unit = op == "per-core" ? e.operands[0].unit + "/core"
             : op == "divide" ? e.operands[0].unit + "/" + e.operands[1].unit
             : op == "multiply" ? e.operands[0].unit + "*" + e.operands[1].unit
                                : e.operands[0].unit;
    return {std::move(e), *where};
}

resolved resolve_one(std::string_view name, unsigned workers, const std::vector<counter_info>& all) {
    if (name.starts_with("/arithmetics/")) return resolve_arithmetic(name, workers, all);
    const normalized n = normalize(name, workers);
    entry e;
    if (n.locality == locality_here() ? !resolve_exact(n.name, workers, e) : !on_other_locality(n, all))
        bad_name(name, "no such counter; the closest are: " + closest(n.name, all) + " (see --weft:list-counters)");
    if (n.locality != locality_here()) return {std::nullopt, n.locality};
    return {std::move(e), n.locality};
}

}  // namespace

std::vector<entry> resolve(std::string_view pattern, unsigned workers) {
    const auto all = all_counters(workers);
    if (pattern.starts_with("/arithmetics/") || !has_wildcard(pattern)) {
        resolved r = resolve_one(pattern, workers, all);
        if (!r.e) return {};
        return {std::move(*r.e)};
    }
    // A pattern without an instance means the total one ("/threads/*"), unless its
    // wildcards span the instance too ("/*" matches every counter of this locality).
    const bool raw_glob = pattern.find('{') == std::string_view::npos;
    const normalized n = raw_glob && pattern.size() >= 2 && pattern[1] == '*'
                             ? normalized{std::string(pattern), locality_here()}
                             : normalize(pattern, workers);
    std::vector<entry> out;
    for (const auto& i : all) {
        if (!glob(n.name, i.name)) continue;
        entry e;
        if (resolve_exact(i.name, workers, e)) out.push_back(std::move(e));
    }
    if (out.empty() && !on_other_locality(n, all))
        bad_name(pattern, "matches no counter; the closest names are: " + closest(n.name, all) +
                              " (see --weft:list-counters)");
    return out;
}

std::vector<std::uint32_t> other_localities(std::string_view pattern) {
    const std::uint32_t here = locality_here();
    const std::uint32_t count = locality_count();
    if (count == 1) return {};
    std::string name(pattern);
    if (pattern.starts_with("/arithmetics/")) {
        // resolve() checked that every operand is of one locality: the first one says which.
        const std::size_t at = pattern.find('@');
        if (at == std::string_view::npos) return {};
        name = split_args(pattern.substr(at + 1)).front();
    }
    const std::size_t brace = name.find('{');
    const std::size_t slash = name.find('/', 1);
    if (brace == std::string::npos || (slash != std::string::npos && slash < brace)) return {};
    const std::size_t sep = name.find('/', brace);
    if (sep == std::string::npos) return {};
    const std::string_view loc = std::string_view(name).substr(brace + 1, sep - brace - 1);
    std::vector<std::uint32_t> out;
    for (std::uint32_t k = 0; k < count; ++k)
        if (k != here && glob(loc, locality_name(k))) out.push_back(k);
    return out;
}

}  // namespace weft::counters::detail
