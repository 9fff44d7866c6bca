// The active global address space (issue #24; seed 004 L39, L57-L68): components'
// tables, migration, destruction, names.
//
// Every id keeps its home, the locality that created the object. An object that cannot
// migrate lives at its home for ever: calls go there with no lookup. A migratable one
// (its type serializes) has a record at its home saying where it lives now; other
// localities cache that (the cache is a hint: a call that finds no object where the
// cache said is forwarded to the home, which knows; the locality that runs a forwarded
// call tells the caller's locality where the object is, with the migration's epoch, so
// a late hint never overwrites a newer one). A call is never run on a wrong object:
// every lookup is by the full id, and ids are never reused.
//
// Migration is run by the object's home, one at a time per object (a weft::mutex in
// its record), as four steps in order, each an action awaited by the home's task:
//   1. extract at the old location: the object stops taking calls (new ones are held
//      there), its running calls finish, its state is serialized;
//   2. install at the new location: a new object from the state, taking calls;
//   3. the home's record points at the new location (from here on, the home forwards there);
//   4. release at the old location: the old object is deleted, the held calls are
//      forwarded to the new location.
// So a call always has a path to the object: held at the old location until step 4,
// which sends it on; forwarded by the home, whose record is never behind a location
// that has released the object. Each call runs once: it is in exactly one place at
// a time (a parcel, a held list, or a task).
#include "agas.hpp"

#include <weft/config/errors.hpp>
#include <weft/distributed/action.hpp>
#include <weft/distributed/async.hpp>
#include <weft/distributed/component.hpp>
#include <weft/distributed/detail/parcelport.hpp>
#include <weft/futures/make_ready_future.hpp>
#include <weft/futures/promise.hpp>
#include <weft/lcos/mutex.hpp>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace weft::distributed::detail {
namespace {

/// A component living here.
struct instance {
    void* object = nullptr;
    std::uint32_t type = 0;
    std::uint64_t epoch = 0;   ///< migrations so far (the install's)
    std::uint64_t pins = 0;    ///< calls running on it
    bool closed = false;       ///< moving away or being destroyed: calls are held
    std::vector<held_parcel> held;
    /// Set when `pins` reaches 0 while closed: whoever closed it waits for this.
    std::unique_ptr<weft::promise<void>> drained;
};

/// At the home of a migratable component: where it lives now. `location`, `epoch` and
/// `destroyed` change only under both `busy` and agas().mutex: read under either.
struct home_record {
    explicit home_record(std::uint32_t at) : location(at) {}
    std::uint32_t location;
    std::uint64_t epoch = 0;
    bool destroyed = false;
    weft::mutex busy;  ///< one migration or destruction at a time
};

/// Names (register_with_basename) whose home is this locality.
struct name_entry {
    id_type id;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> waiting;  ///< (locality, continuation) of finds
};

struct agas_state {
    std::mutex mutex;  ///< instances, homes, names
    std::unordered_map<id_type, std::unique_ptr<instance>> instances;
    std::unordered_map<id_type, std::shared_ptr<home_record>> homes;
    std::map<std::pair<std::string, std::uint64_t>, name_entry> names;
    std::atomic<std::uint64_t> next{1};

    std::mutex cache_mutex;
    std::unordered_map<id_type, std::pair<std::uint32_t, std::uint64_t>> cache;  ///< location, epoch
    static constexpr std::size_t cache_limit = std::size_t{1} << 16;

    // relaxed (all four): statistics.
    std::atomic<std::uint64_t> resolves{0}, cache_hits{0}, cache_misses{0}, migrations{0};
};

agas_state& agas() {
    static agas_state s;
    return s;
}

const component_type_entry& type_entry(std::uint32_t type) {
    const component_type_entry* e = component_table::instance().find(type);
    if (e == nullptr) throw serialization_error("weft: component type " + std::to_string(type) + " is unknown");
    return *e;
}

std::string no_component(const id_type& id) {
    return "weft: no component " + id.to_string() + " (destroyed, or never created)";
}

/// Closes `inst` to calls and waits (suspending the task) until its running calls
/// have returned. Takes `lock` (on agas().mutex) and returns with it unlocked.
void close_and_drain(instance* inst, std::unique_lock<std::mutex>& lock) {
    inst->closed = true;
    weft::future<void> drained;
    if (inst->pins != 0) {
        inst->drained = std::make_unique<weft::promise<void>>();
        drained = inst->drained->get_future();
    }
    lock.unlock();
    if (drained.valid()) drained.get();
}

/// Takes `id` out of the table (it must be closed and drained), deletes the object and
/// returns the calls held for it.
std::vector<held_parcel> erase_instance(const id_type& id) {
    std::unique_ptr<instance> inst;
    {
        const std::lock_guard lock(agas().mutex);
        const auto it = agas().instances.find(id);
        if (it == agas().instances.end()) return {};
        inst = std::move(it->second);
        agas().instances.erase(it);
    }
    type_entry(inst->type).destroy(inst->object);
    return std::move(inst->held);
}

void send_answer(std::uint32_t to, std::uint64_t continuation, const id_type& value);

}  // namespace

// --- Actions (run where they are sent; internal) --------------------------------------

/// At the object's location: closes it, waits for its calls, returns its type and state.
std::pair<std::uint32_t, serialization::buffer<std::byte>> agas_extract(id_type id) {
    std::unique_lock lock(agas().mutex);
    const auto it = agas().instances.find(id);
    if (it == agas().instances.end())
        throw weft::error("weft::migrate: " + id.to_string() + " does not live on locality " + std::to_string(here()));
    instance* inst = it->second.get();
    close_and_drain(inst, lock);
    const component_type_entry& e = type_entry(inst->type);
    serialization::output_archive out(SIZE_MAX);  // no chunks: the state is copied once, here
    e.save(inst->object, out);
    serialization::buffer<std::byte> state(out.bytes().begin(), out.bytes().end());
    return {inst->type, std::move(state)};
}
WEFT_PLAIN_ACTION(agas_extract, weft_agas_extract_action);

/// At the new location: a new object of `type` from `state`, taking calls.
void agas_install(id_type id, std::uint32_t type, std::uint64_t epoch, serialization::buffer<std::byte> state) {
    const component_type_entry& e = type_entry(type);
    if (e.load == nullptr) throw weft::error("weft::migrate: component type " + std::string(e.name) + " cannot migrate");
    serialization::input_archive in(std::span<const std::byte>(state.data(), state.size()));
    void* object = e.load(in, id);
    auto inst = std::make_unique<instance>();
    inst->object = object;
    inst->type = type;
    inst->epoch = epoch;
    const std::lock_guard lock(agas().mutex);
    agas().instances[id] = std::move(inst);
}
WEFT_PLAIN_ACTION(agas_install, weft_agas_install_action);

/// At the old location, once the home points at `to`: deletes the old object and sends
/// the calls held for it on to `to`.
void agas_release(id_type id, std::uint32_t to) {
    for (held_parcel& p : erase_instance(id)) forward_parcel(std::move(p), to);
}
WEFT_PLAIN_ACTION(agas_release, weft_agas_release_action);

/// At the old location, when the install failed: the object takes calls again.
void agas_reopen(id_type id) {
    std::vector<held_parcel> held;
    {
        const std::lock_guard lock(agas().mutex);
        const auto it = agas().instances.find(id);
        if (it == agas().instances.end()) return;
        it->second->closed = false;
        held = std::move(it->second->held);
    }
    for (held_parcel& p : held) agas_route(std::move(p));
}
WEFT_PLAIN_ACTION(agas_reopen, weft_agas_reopen_action);

std::shared_ptr<home_record> find_home_record(const id_type& id) {
    const std::lock_guard lock(agas().mutex);
    const auto it = agas().homes.find(id);
    return it == agas().homes.end() ? nullptr : it->second;
}

/// At the home: moves `id` to locality `to` (the four steps above).
void agas_migrate(id_type id, std::uint32_t to) {
    if (to >= localities()) throw weft::error("weft::migrate: there is no locality#" + std::to_string(to));
    const std::shared_ptr<home_record> rec = find_home_record(id);
    if (!rec) throw weft::error("weft::migrate: " + no_component(id).substr(6));
    const std::lock_guard busy(rec->busy);
    if (rec->destroyed) throw weft::error("weft::migrate: " + no_component(id).substr(6));
    const std::uint32_t from = rec->location;
    if (from == to) return;
    auto [type, state] = weft::async(weft_agas_extract_action{}, id_type::locality(from), id).get();
    const std::uint64_t epoch = rec->epoch + 1;
    try {
        weft::async(weft_agas_install_action{}, id_type::locality(to), id, type, epoch, std::move(state)).get();
    } catch (...) {
        weft::async(weft_agas_reopen_action{}, id_type::locality(from), id).get();
        throw;
    }
    {
        const std::lock_guard lock(agas().mutex);
        rec->location = to;
        rec->epoch = epoch;
    }
    weft::async(weft_agas_release_action{}, id_type::locality(from), id, to).get();
    agas().migrations.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
}
WEFT_PLAIN_ACTION(agas_migrate, weft_agas_migrate_action);

/// Where `id` (created here, migratable) lives now.
std::uint32_t agas_locate(id_type id) {
    const std::shared_ptr<home_record> rec = find_home_record(id);
    std::unique_lock lock(agas().mutex);  // destroyed and location change under it
    if (!rec || rec->destroyed) {
        lock.unlock();
        throw weft::error("weft::get_locality: " + no_component(id).substr(6));
    }
    return rec->location;
}
WEFT_PLAIN_ACTION(agas_locate, weft_agas_locate_action);

/// Where the object lives: destroys it once its calls have returned; the calls held
/// meanwhile fail (routed on, they find no object).
void agas_destroy_here(id_type id) {
    std::unique_lock lock(agas().mutex);
    const auto it = agas().instances.find(id);
    if (it == agas().instances.end() || it->second->closed) {
        lock.unlock();
        throw weft::error("weft::destroy: " + no_component(id).substr(6));
    }
    close_and_drain(it->second.get(), lock);
    for (held_parcel& p : erase_instance(id)) agas_route(std::move(p));
}
WEFT_PLAIN_ACTION(agas_destroy_here, weft_agas_destroy_here_action);

/// At the home of a migratable object: destroys it where it lives, then forgets it.
void agas_destroy_home(id_type id) {
    const std::shared_ptr<home_record> rec = find_home_record(id);
    if (!rec) throw weft::error("weft::destroy: " + no_component(id).substr(6));
    const std::lock_guard busy(rec->busy);
    if (rec->destroyed) throw weft::error("weft::destroy: " + no_component(id).substr(6));
    {
        const std::lock_guard lock(agas().mutex);
        rec->destroyed = true;  // calls routed through the home fail from now on
    }
    weft::async(weft_agas_destroy_here_action{}, id_type::locality(rec->location), id).get();
    const std::lock_guard lock(agas().mutex);
    agas().homes.erase(id);
}
WEFT_PLAIN_ACTION(agas_destroy_home, weft_agas_destroy_home_action);

/// At a caller's locality: `id` lives at `location` since migration `epoch`.
void agas_cache_update(id_type id, std::uint32_t location, std::uint64_t epoch) {
    agas_state& s = agas();
    const std::lock_guard lock(s.cache_mutex);
    auto [it, fresh] = s.cache.try_emplace(id, location, epoch);
    if (!fresh && it->second.second <= epoch) it->second = {location, epoch};
    if (fresh && s.cache.size() > agas_state::cache_limit) {
        s.cache.clear();  // a hint: forgetting costs a forward per object, never a wrong call
        s.cache.emplace(id, std::make_pair(location, epoch));
    }
}
WEFT_PLAIN_ACTION(agas_cache_update, weft_agas_cache_update_action);

/// At a name's home: registers it; answers the finds that wait for it.
bool agas_register_name(std::string name, std::uint64_t sequence, id_type id) {
    std::vector<std::pair<std::uint32_t, std::uint64_t>> waiting;
    {
        const std::lock_guard lock(agas().mutex);
        name_entry& e = agas().names[{std::move(name), sequence}];
        if (e.id) return false;
        e.id = id;
        waiting.swap(e.waiting);
    }
    for (const auto& [locality, continuation] : waiting) send_answer(locality, continuation, id);
    return true;
}
WEFT_PLAIN_ACTION(agas_register_name, weft_agas_register_name_action);

/// At a name's home: answers continuation `continuation` of locality `from` with the id
/// registered under the name, now or once it is.
void agas_find_name(std::string name, std::uint64_t sequence, std::uint32_t from, std::uint64_t continuation) {
    id_type id;
    {
        const std::lock_guard lock(agas().mutex);
        name_entry& e = agas().names[{std::move(name), sequence}];
        if (!e.id) {
            e.waiting.emplace_back(from, continuation);
            return;
        }
        id = e.id;
    }
    send_answer(from, continuation, id);
}
WEFT_PLAIN_ACTION(agas_find_name, weft_agas_find_name_action);

/// At a name's home: removes the name, returning the id it named (null if none). Finds
/// waiting for it keep waiting (for a new registration).
id_type agas_unregister_name(std::string name, std::uint64_t sequence) {
    const std::lock_guard lock(agas().mutex);
    const auto it = agas().names.find({std::move(name), sequence});
    if (it == agas().names.end()) return {};
    const id_type id = std::exchange(it->second.id, id_type{});
    if (it->second.waiting.empty()) agas().names.erase(it);
    return id;
}
WEFT_PLAIN_ACTION(agas_unregister_name, weft_agas_unregister_name_action);

/// At a finder's locality: completes its future.
void agas_name_found(std::uint64_t continuation, id_type id) {
    if (!continuations().complete(continuation, serialization::to_bytes(id)))
        std::fprintf(stderr, "weft: locality %u: a name was found for a find nobody waits for\n", here());
}
WEFT_PLAIN_ACTION(agas_name_found, weft_agas_name_found_action);

namespace {

void send_answer(std::uint32_t to, std::uint64_t continuation, const id_type& value) {
    if (to == here()) {
        agas_name_found(continuation, value);
        return;
    }
    weft::post(weft_agas_name_found_action{}, id_type::locality(to), continuation, value);
}

/// The locality a name belongs to: a hash of it, so that every locality agrees.
std::uint32_t name_home(const std::string& name) {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
    for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return static_cast<std::uint32_t>(h % localities());
}

/// Where a call to `id` goes first.
std::uint32_t resolve_for_call(const id_type& id) {
    agas_state& s = agas();
    const std::uint32_t home = id.locality_id();
    if (!id.is_migratable()) return home;
    if (home == here()) {
        const std::lock_guard lock(s.mutex);
        const auto it = s.homes.find(id);
        return it == s.homes.end() ? home : it->second->location;
    }
    {
        const std::lock_guard lock(s.cache_mutex);
        const auto it = s.cache.find(id);
        if (it != s.cache.end()) {
            s.cache_hits.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
            return it->second.first;
        }
    }
    s.cache_misses.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    return home;
}

}  // namespace

// --- What component.hpp's templates use -----------------------------------------------

void check_component(const char* what, const id_type& id) {
    check_target(what, id.locality_id(), id.valid());
    if (!id.is_component())
        throw weft::error(std::string(what) + ": " + id.to_string() + " is not a component's id" +
                          (id.is_locality() ? " (a locality's: use a plain action)" : ""));
}

id_type agas_insert_new(void* object, std::uint32_t type, bool migratable) {
    agas_state& s = agas();
    const std::uint64_t sequence = s.next.fetch_add(1, std::memory_order_relaxed);  // relaxed: only unique
    const id_type id = id_type::object(here(), id_type::component_flag | (migratable ? id_type::migratable_flag : 0),
                                       sequence);
    auto inst = std::make_unique<instance>();
    inst->object = object;
    inst->type = type;
    const std::lock_guard lock(s.mutex);
    s.instances.emplace(id, std::move(inst));
    if (migratable) s.homes.emplace(id, std::make_shared<home_record>(here()));
    return id;
}

void local_ref::reset() noexcept {
    if (object_ == nullptr) return;
    auto* inst = static_cast<instance*>(instance_);
    std::unique_ptr<weft::promise<void>> drained;
    {
        const std::lock_guard lock(agas().mutex);
        if (--inst->pins == 0 && inst->closed) drained = std::move(inst->drained);
    }
    object_ = nullptr;
    instance_ = nullptr;
    if (drained) drained->set_value();
}

found agas_acquire(const id_type& id, const std::type_info& expected, std::string_view action, local_ref& ref) {
    if (!id.is_migratable() && id.locality_id() != here()) return found::absent;
    agas_state& s = agas();
    const std::lock_guard lock(s.mutex);
    const auto it = s.instances.find(id);
    if (it == s.instances.end()) return found::absent;
    instance* inst = it->second.get();
    if (inst->closed) return found::moving;
    const component_type_entry& e = type_entry(inst->type);
    if (*e.type != expected)
        throw weft::error("weft: " + std::string(action) + " is an action of " + type_name(expected) + ", but " +
                          id.to_string() + " is a " + std::string(e.name));
    ++inst->pins;
    ref = local_ref(inst->object, inst);
    return found::live;
}

local_ref agas_pin(const id_type& id, const std::type_info& expected, std::string_view what) {
    agas().resolves.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    local_ref ref;
    (void)agas_acquire(id, expected, what, ref);
    return ref;
}

void send_component_call(const id_type& target, std::uint32_t action, std::uint64_t continuation,
                         const serialization::output_archive& payload, std::shared_ptr<const void> keep) {
    held_parcel p;
    p.h.kind = parcel_kind::component_call;
    p.h.source = here();
    p.h.origin = here();
    p.h.action = action;
    p.h.continuation = continuation;
    const std::uint32_t to = resolve_for_call(target);
    if (to != here()) {
        p.h.destination = to;
        send_parcel_header(p.h, payload, std::move(keep));
        return;
    }
    // It should live here but did not take the call (agas_pin failed): moving away,
    // moved, or gone.
    p.h.destination = here();
    p.payload.assign(payload.bytes().begin(), payload.bytes().end());
    p.chunks = payload.chunks();
    p.keep = std::move(keep);
    agas_route(std::move(p));
}

// --- The call path's side (agas.hpp) ----------------------------------------------------

id_type call_target(std::span<const std::byte> payload) noexcept {
    id_type id;
    std::memcpy(&id, payload.data(), sizeof id);
    return id;
}

void agas_route(held_parcel p) {
    const id_type id = call_target(p.payload);
    const action_entry* action = action_table::instance().find(p.h.action);
    agas_state& s = agas();
    std::uint32_t to = 0;
    {
        std::unique_lock lock(s.mutex);
        const auto it = s.instances.find(id);
        if (it != s.instances.end()) {
            instance* inst = it->second.get();
            if (inst->closed) {
                inst->held.push_back(std::move(p));
                return;
            }
            lock.unlock();
            local_ref ref;
            try {
                if (agas_acquire(id, *action->component, action->name, ref) == found::live) {
                    run_held(std::move(p), std::move(ref));
                    return;
                }
            } catch (...) {
                fail_call(p.h, std::current_exception());
                return;
            }
            agas_route(std::move(p));  // closed meanwhile: hold it
            return;
        }
        if (id.locality_id() != here()) {
            to = id.locality_id();
        } else if (const auto h = s.homes.find(id); id.is_migratable() && h != s.homes.end() && !h->second->destroyed &&
                                                    h->second->location != here()) {
            to = h->second->location;
        } else {
            lock.unlock();
            fail_call(p.h, std::make_exception_ptr(weft::error(no_component(id))));
            return;
        }
    }
    if (p.h.hops >= parcel_header::max_hops) {
        fail_call(p.h, std::make_exception_ptr(weft::error("weft: " + id.to_string() + " was not found after " +
                                                           std::to_string(p.h.hops) + " forwards")));
        return;
    }
    forward_parcel(std::move(p), to);
}

void agas_note_location(std::uint32_t origin, const id_type& id) {
    std::uint64_t epoch = 0;
    {
        const std::lock_guard lock(agas().mutex);
        const auto it = agas().instances.find(id);
        if (it == agas().instances.end()) return;
        epoch = it->second->epoch;
    }
    if (origin == id.locality_id()) return;  // the home knows
    if (origin == here()) {
        agas_cache_update(id, here(), epoch);
        return;
    }
    weft::post(weft_agas_cache_update_action{}, id_type::locality(origin), id, here(), epoch);
}

void agas_start() { component_table::instance().freeze(); }

void agas_stop() noexcept {
    agas_state& s = agas();
    std::unordered_map<id_type, std::unique_ptr<instance>> left;
    {
        const std::lock_guard lock(s.mutex);
        left.swap(s.instances);
        s.homes.clear();
        s.names.clear();
    }
    {
        const std::lock_guard lock(s.cache_mutex);
        s.cache.clear();
    }
    for (auto& [id, inst] : left) {
        const component_type_entry* e = component_table::instance().find(inst->type);
        if (e != nullptr) e->destroy(inst->object);
    }
    if (!left.empty()) {
        std::fprintf(stderr,
                     "weft: locality %u: %zu component%s still alive when the runtime stopped (destroyed now: "
                     "call weft::destroy, or hold them in a weft::client)\n",
                     here(), left.size(), left.size() == 1 ? " was" : "s were");
        std::fflush(stderr);
    }
}

agas_stats agas_read_stats() noexcept {
    const agas_state& s = agas();
    // relaxed (all): statistics.
    return {s.resolves.load(std::memory_order_relaxed), s.cache_hits.load(std::memory_order_relaxed),
            s.cache_misses.load(std::memory_order_relaxed), s.migrations.load(std::memory_order_relaxed)};
}

}  // namespace weft::distributed::detail

// --- weft/distributed/component.hpp's functions ---------------------------------------------

namespace weft {

namespace dd = distributed::detail;

future<void> destroy(const id_type& id) {
    dd::check_component("weft::destroy", id);
    if (id.is_migratable()) return weft::async(dd::weft_agas_destroy_home_action{}, id_type::locality(id.locality_id()), id);
    return weft::async(dd::weft_agas_destroy_here_action{}, id_type::locality(id.locality_id()), id);
}

future<void> migrate(const id_type& id, const id_type& locality) {
    dd::check_component("weft::migrate", id);
    if (!locality.is_locality())
        throw weft::error("weft::migrate: the target must be a locality's id, not " + locality.to_string());
    dd::check_target("weft::migrate", locality.locality_id(), true);
    if (!id.is_migratable())
        throw weft::error("weft::migrate: " + id.to_string() +
                          " cannot migrate: its type is not serializable (give it a serialize function, or make it "
                          "trivially copyable and default-constructible)");
    return weft::async(dd::weft_agas_migrate_action{}, id_type::locality(id.locality_id()), id, locality.locality_id());
}

future<id_type> get_locality(const id_type& id) {
    dd::check_target("weft::get_locality", id.locality_id(), id.valid());
    dd::agas().resolves.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    if (!id.is_migratable()) return make_ready_future(id_type::locality(id.locality_id()));
    future<std::uint32_t> at = weft::async(dd::weft_agas_locate_action{}, id_type::locality(id.locality_id()), id);
    return at.then([](future<std::uint32_t> f) { return id_type::locality(f.get()); });
}

future<bool> register_with_basename(const std::string& basename, const id_type& id, std::size_t sequence) {
    dd::check_target("weft::register_with_basename", id.locality_id(), id.valid());
    return weft::async(dd::weft_agas_register_name_action{}, id_type::locality(dd::name_home(basename)), basename,
                       std::uint64_t{sequence}, id);
}

future<id_type> unregister_with_basename(const std::string& basename, std::size_t sequence) {
    dd::check_target("weft::unregister_with_basename", dd::here(), true);
    return weft::async(dd::weft_agas_unregister_name_action{}, id_type::locality(dd::name_home(basename)), basename,
                       std::uint64_t{sequence});
}

future<id_type> find_from_basename(const std::string& basename, std::size_t sequence) {
    dd::check_target("weft::find_from_basename", dd::here(), true);
    auto [continuation, result] = dd::continuations().template add<id_type>();
    const std::uint32_t home = dd::name_home(basename);
    try {
        if (home == dd::here()) {
            dd::agas_find_name(basename, sequence, dd::here(), continuation);
        } else {
            weft::post(dd::weft_agas_find_name_action{}, id_type::locality(home), basename, std::uint64_t{sequence},
                       dd::here(), continuation);
        }
    } catch (...) {
        dd::continuations().fail(continuation, std::current_exception());
        throw;
    }
    return std::move(result);
}

}  // namespace weft
