// A locality hierarchy over workers and the two stealing decisions HotSLAW makes on it
// (seed 002 §3.2): Hierarchical Victim Selection (HVS, §3.2.1) and Hierarchical Chunk
// Selection (HCS, §3.2.2). Pure code: it names victims by worker index and sizes chunks
// from a victim's public queue length, never touching a queue, so the `hierarchical`
// scheduler policy and the cluster simulator (tools/schedsim) run the very same
// decisions, and a later distributed layer can map indices to remote workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::ext {

/// What a level's domains span; it sets the level's default chunk (see steal_plan).
enum class level_kind : std::uint8_t {
    core,     ///< workers sharing one core (more workers than cores)
    cache,    ///< a shared cache inside a NUMA node
    numa,     ///< a NUMA node
    socket,   ///< a package
    node,     ///< a machine (shared memory) holding several sockets
    cluster,  ///< several machines (distributed memory)
    group,    ///< a user-defined group (--weft:hierarchy=SIZES)
};
/// "core", "cache", "numa", "socket", "node", "cluster" or "group".
std::string_view to_string(level_kind k) noexcept;

/// A locality hierarchy over `workers()` workers: levels innermost first; at each level
/// every worker lies in exactly one domain, each domain lies inside one domain of the next
/// level, and the last level is a single domain holding every worker. Levels whose
/// domains are all single workers, and levels that repeat the one below, are dropped.
/// Immutable once built; every const member may be called from any thread.
class hierarchy {
public:
    struct level {
        level_kind kind = level_kind::group;
        std::vector<std::vector<unsigned>> domains;  ///< worker indices of each domain, ascending
        std::vector<unsigned> domain_of;             ///< per worker: index into domains
    };

    /// One level holding every worker: HVS degenerates to random victim selection.
    static hierarchy flat(unsigned workers);

    /// User-defined (--weft:hierarchy=4,8): consecutive groups of sizes[0] workers, then
    /// of sizes[1], ..., then everything. Each size must be a multiple of the one before.
    /// @throws weft::bad_option (naming `where`) for a size of 0 or one that is not a
    ///         multiple of the previous one.
    static hierarchy groups(unsigned workers, const std::vector<unsigned>& sizes, std::string_view where = "hierarchy");

    /// A synthetic machine, outermost first: "nodes:2,sockets:2,cores:4" (keys nodes,
    /// sockets, numa, caches, cores; each a count per enclosing level; cores required;
    /// keys in that order). Worker w sits on core w; workers() is the product.
    /// @throws weft::bad_option naming `where` and what is accepted.
    static hierarchy parse_machine(std::string_view spec, std::string_view where = "--weft:topology");
    /// The worker count parse_machine(spec) would have, or 0 if the spec is malformed.
    static unsigned machine_workers(std::string_view spec) noexcept;

    /// From per-worker placement: the shared cache, NUMA node, socket and core each
    /// worker runs on (the runtime's topology, hwloc's by default). Equal ids mean the
    /// same domain at that level; workers on one core form the innermost level.
    struct placement {
        unsigned core = 0, cache = 0, numa = 0, socket = 0;
    };
    static hierarchy from_placement(const std::vector<placement>& workers);

    unsigned workers() const noexcept { return workers_; }
    unsigned num_levels() const noexcept { return static_cast<unsigned>(levels_.size()); }
    const level& at(unsigned l) const noexcept { return levels_[l]; }
    /// The domain of worker `w` at level `l`.
    const std::vector<unsigned>& domain(unsigned l, unsigned w) const noexcept {
        return levels_[l].domains[levels_[l].domain_of[w]];
    }
    /// The innermost level at which `a` and `b` share a domain (`a != b`); the top level
    /// when they share only that. The thief/victim distance HCS uses.
    unsigned common_level(unsigned a, unsigned b) const noexcept;
    /// "socket(4) < node(8)": each level's kind and its largest domain.
    std::string describe() const;

private:
    void add_level(level l);
    void finish();  ///< appends the all-workers level when missing

    unsigned workers_ = 0;
    std::vector<level> levels_;
};

/// How many tasks one steal moves (seed 002 §3.2.2): a fixed count, or half of what the
/// victim's public queue holds (StealHalf, rounded up).
struct chunk_rule {
    unsigned count = 1;  ///< ignored when half
    bool half = false;
    /// The chunk to take from a public queue holding `available` tasks (at most that, at
    /// least 1 when any).
    unsigned chunk(std::size_t available) const noexcept {
        if (available == 0) return 0;
        const std::size_t want = half ? (available + 1) / 2 : count;
        return static_cast<unsigned>(want < available ? want : available);
    }
    friend bool operator==(const chunk_rule&, const chunk_rule&) = default;
};

/// The steal attempts and chunks per level of one hierarchy: HVS's schedule and HCS's
/// table.
struct steal_plan {
    std::vector<unsigned> attempts;  ///< per level: random victims tried before moving up
    std::vector<chunk_rule> chunks;  ///< per level: how much a steal from there takes

    /// Seed 002's defaults. Attempts: at an inner level, the size of the thief's domain
    /// there (its number of cores); at the top level ceil(4·log2(N)), N = all workers
    /// (the seed gives no log base; base 2 gives the larger count). Chunks by what the
    /// level spans: 1 inside a socket (core, cache, numa, socket), 2 across the sockets
    /// of one machine (node), StealHalf across machines (cluster); a user-defined level
    /// takes 1, except the top level of a hierarchy with user-defined levels, which takes
    /// StealHalf (the seed's "chunk 1 intra-node, StealHalf inter-node"). A flat
    /// hierarchy (random victim selection) takes 1.
    static steal_plan defaults(const hierarchy& h);

    /// Overrides from options. `attempts`: "auto" or a comma-separated count per level,
    /// innermost first, each a number or "auto" (e.g. "auto,2,8"). `chunks`: "auto" or a
    /// comma-separated rule per level, each a number, "half" or "auto". A list shorter
    /// than the levels leaves the outer ones at their defaults.
    /// @throws weft::bad_option naming the option and what is accepted.
    static steal_plan parse(const hierarchy& h, std::string_view attempts, std::string_view chunks);
};

/// The victims one thief tries, in HVS order (seed 002 §3.2.1): starting at the innermost
/// level, attempts[l] victims drawn uniformly at random from its domain at level l
/// (itself excluded), then the next level up; after the top level, back to the bottom.
/// Levels where the thief's domain holds only itself are skipped. Owner-only state: one
/// selector per thief. It points into the hierarchy's domain lists: the hierarchy must
/// outlive it and stay where it is (keep both in one object, as the policy does).
class victim_selector {
public:
    struct choice {
        unsigned victim;
        unsigned level;
    };

    victim_selector() = default;
    victim_selector(const hierarchy& h, const steal_plan& plan, unsigned self);

    /// Victims in one full climb from the bottom to the top (0: the thief is alone).
    unsigned round_length() const noexcept { return round_; }
    /// Restarts at the bottom (after a successful steal, say).
    void reset() noexcept { level_ = 0, done_ = 0; }

    /// The next victim; `random()` returns uniformly distributed 64-bit numbers.
    /// Precondition: round_length() > 0.
    template <class Random>
    choice next(Random&& random) noexcept {
        while (done_ >= steps_[level_].attempts) {
            done_ = 0;
            level_ = level_ + 1 == steps_.size() ? 0 : level_ + 1;
        }
        ++done_;
        const step& s = steps_[level_];
        // The domain without `self`: draw among size-1 and skip over self's slot.
        const auto k = static_cast<unsigned>(random() % (s.domain->size() - 1));
        const unsigned v = (*s.domain)[k < s.self_pos ? k : k + 1];
        return {v, s.level};
    }

private:
    struct step {
        const std::vector<unsigned>* domain;
        unsigned self_pos;  ///< index of self in *domain
        unsigned level;     ///< the hierarchy level
        unsigned attempts;
    };
    std::vector<step> steps_;  ///< levels with attempts > 0 and another worker
    unsigned round_ = 0;
    std::size_t level_ = 0;
    unsigned done_ = 0;
};

}  // namespace weft::ext
