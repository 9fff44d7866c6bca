// The tuning history file, shared by the engine (which knows its path) and the tunables
// (which read and append to it); history.cpp holds its format.
#pragma once

#include <weft/adapt/policy.hpp>

#include <string>
#include <vector>

namespace weft::adapt::detail {

// History lines: program \t tunable-key \t domain-key \t value \t objective
struct history_line {
    std::string program, key, domain;
    double value = 0, objective = 0;
};
/// The --weft:adapt-history file of the running engine; empty: none (engine.cpp).
std::string history_path();
/// Every well-formed line of the file at `path` (torn or foreign lines skipped).
std::vector<history_line> read_history(const std::string& path);
/// The key of a domain in the file: its kind, size and bounds.
std::string domain_key(const domain& d);
/// The running program's file name (from /proc/self/exe), or "program".
std::string program_name();

}  // namespace weft::adapt::detail
