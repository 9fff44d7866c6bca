// For the layers above the runtime (the template task graph): whether the running
// runtime runs the program's main function on every locality (src/runtime/runtime.cpp).
#pragma once

namespace weft::detail {

/// Whether the running runtime was started with --weft:spmd (false when none runs).
bool runtime_spmd() noexcept;

}  // namespace weft::detail
