// The registry of scheduler policies by name (--weft:scheduler=NAME).
#include "policies/policies.hpp"

#include <mutex>
#include <utility>
#include <vector>

namespace weft::ext {
namespace {

struct registry {
    std::mutex mutex;
    std::vector<std::pair<std::string, policy_factory>> entries{
        {"local-priority", [] { return weft::detail::make_local_priority_policy(); }},
        {"static", [] { return weft::detail::make_static_policy(); }},
        {"single", [] { return weft::detail::make_single_policy(); }},
        {"xqueue", [] { return weft::detail::make_xqueue_policy("xqueue"); }},
        {"xqueue-static", [] { return weft::detail::make_xqueue_policy("xqueue-static"); }},
        {"xqueue-wait", [] { return weft::detail::make_xqueue_policy("xqueue-wait"); }},
        {"xqueue-wait-free", [] { return weft::detail::make_xqueue_policy("xqueue-wait-free"); }},
        {"xqueue-wait-free-two", [] { return weft::detail::make_xqueue_policy("xqueue-wait-free-two"); }},
        {"hierarchical", [] { return weft::detail::make_hierarchical_policy(); }},
    };
};

registry& the_registry() {
    static registry r;
    return r;
}

}  // namespace

void register_scheduler_policy(std::string name, policy_factory factory) {
    registry& r = the_registry();
    std::lock_guard lock(r.mutex);
    for (auto& e : r.entries) {
        if (e.first == name) {
            e.second = std::move(factory);
            return;
        }
    }
    r.entries.emplace_back(std::move(name), std::move(factory));
}

std::vector<std::string> scheduler_policy_names() {
    registry& r = the_registry();
    std::lock_guard lock(r.mutex);
    std::vector<std::string> names;
    for (const auto& e : r.entries) names.push_back(e.first);
    return names;
}

std::unique_ptr<scheduler_policy> make_scheduler_policy(std::string_view name) {
    registry& r = the_registry();
    policy_factory make;
    {
        std::lock_guard lock(r.mutex);
        for (const auto& e : r.entries)
            if (e.first == name) {
                make = e.second;
                break;
            }
    }
    // Called outside the lock: a factory may make another policy to wrap it.
    return make ? make() : nullptr;
}

}  // namespace weft::ext
