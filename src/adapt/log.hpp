// The adaptation log, shared by the parts of the policy engine (log.cpp writes it).
#pragma once

#include <string_view>

namespace weft::adapt::detail {

/// Appends "weft-adapt [T s] WHO: MESSAGE" to the log, if one is open.
void write_log(std::string_view who, std::string_view message);
/// Logs to `path` ("stderr", "stdout", a file appended to; empty: no log). @throws weft::error
void open_log(std::string_view path);

}  // namespace weft::adapt::detail
