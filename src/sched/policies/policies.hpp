// Factories of the built-in scheduler policies (registered by name in registry.cpp).
#pragma once

#include <weft/ext/scheduler_policy.hpp>

#include <memory>

namespace weft::detail {
std::unique_ptr<ext::scheduler_policy> make_local_priority_policy();
std::unique_ptr<ext::scheduler_policy> make_static_policy();
std::unique_ptr<ext::scheduler_policy> make_single_policy();
}  // namespace weft::detail
