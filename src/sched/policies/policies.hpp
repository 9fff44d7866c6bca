// Factories of the built-in scheduler policies (registered by name in registry.cpp).
#pragma once

#include <weft/ext/scheduler_policy.hpp>

#include <memory>
#include <string_view>

namespace weft::detail {
std::unique_ptr<ext::scheduler_policy> make_local_priority_policy();
std::unique_ptr<ext::scheduler_policy> make_static_policy();
std::unique_ptr<ext::scheduler_policy> make_single_policy();
/// xqueue, xqueue-static, xqueue-wait, xqueue-wait-free, xqueue-wait-free-two; null otherwise.
std::unique_ptr<ext::scheduler_policy> make_xqueue_policy(std::string_view name);
/// HotSLAW's bounded split queues with HVS and HCS (seed 002).
std::unique_ptr<ext::scheduler_policy> make_hierarchical_policy();
}  // namespace weft::detail
