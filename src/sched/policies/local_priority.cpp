// `local-priority`, the default policy: HPX's Priority Local-FIFO scheduler of seed 000
// §2.3.1 (Figure 5). Per worker a pending and a staged queue (Chase–Lev deques: LIFO
// for the owner's new work, FIFO for thieves), a high-priority queue per worker and
// one shared low-priority queue that runs only when nothing else is ready. Stealing
// looks at the own NUMA domain first (staged before pending: a staged task has no
// stack yet, so it is the cheapest to move), then at the other domains.
#include "policies/local_queues.hpp"
#include "policies/policies.hpp"

#include <weft/concurrency/backoff_spinlock.hpp>

#include <memory>
#include <mutex>
#include <vector>

namespace weft::detail {
namespace {

class local_priority_policy final : public ext::scheduler_policy {
public:
    std::string_view name() const noexcept override { return "local-priority"; }

    void attach(const std::vector<ext::worker_info>& workers) override {
        const auto n = workers.size();
        queues_ = std::make_unique<local_queues[]>(n);
        n_ = static_cast<unsigned>(n);
        active_.store(n_, std::memory_order_relaxed);  // relaxed: before any worker starts
        near_.assign(n, {});
        far_.assign(n, {});
        for (const auto& a : workers)
            for (const auto& b : workers)
                if (a.index != b.index)
                    (a.numa_node == b.numa_node ? near_ : far_)[a.index].push_back(b.index);
    }

    ext::placement schedule(ext::worker_context* self, task& t) override {
        if (self == nullptr) return place_from_outside(queues_.get(), active(), rr_, t);
        if (!queues_[self->index].push_local(t)) {
            low_.push(t);
        }
        return {};
    }

    task* next_task(ext::worker_context& self) noexcept override {
        local_queues& q = queues_[self.index];
        if (self.index >= active()) {
            hand_off(q);
            return nullptr;
        }
        if (!q.inbox.empty()) drain_inbox(self, q);
        if (task* t = q.pop_own(self)) return t;
        if (task* t = steal(self)) return t;
        if (task* t = q.pop_yielded()) return t;
        return low_.pop();
    }

    bool take_back(ext::worker_context& self, task& t) noexcept override {
        return queues_[self.index].take_back(t);
    }

    ext::spawn_path spawn_path_of(unsigned worker) noexcept override {
        return ext::spawn_path::stealing_deque(&queues_[worker].staged);
    }

    queue_state queue_state_of(unsigned worker) const noexcept override {
        return worker < n_ ? queues_[worker].state() : queue_state{};
    }

    std::uint64_t shared_queue_length() const noexcept override {
        return low_.size();
    }

    bool set_active_workers(unsigned n) noexcept override {
        // relaxed: a throttled worker that reads the old value runs a few more tasks; the
        // scheduler wakes every worker after the change, and the wake orders it.
        active_.store(std::clamp(n, 1u, n_), std::memory_order_relaxed);
        return true;
    }

private:
    unsigned active() const noexcept {
        // relaxed: see set_active_workers; read on the idle and outside-spawn paths only.
        return active_.load(std::memory_order_relaxed);
    }

    // A throttled worker's tasks that nobody else could take (inbox, yielded, low) go to
    // the shared low-priority queue, which every active worker polls when idle. Tasks
    // lose their place in line, not their run: throttling is rare.
    void hand_off(local_queues& q) noexcept {
        task* moved = q.inbox.take_all();
        low_.push_all([&q, &moved]() noexcept -> task* {
            if (task* t = moved) {
                moved = t->next;
                t->next = nullptr;
                return t;
            }
            if (task* t = q.pop_yielded()) return t;
            return q.pop_low();
        });
    }

    void drain_inbox(ext::worker_context& self, local_queues& q) noexcept {
        for (task* t = q.inbox.take_all(); t != nullptr;) {
            task* next = t->next;
            t->next = nullptr;
            try {
                schedule(&self, *t);
            } catch (...) {
                std::terminate();  // a deque could not grow: out of memory
            }
            t = next;
        }
    }

    task* steal_from(const std::vector<unsigned>& victims, ext::worker_context& self,
                     ext::work_stealing_deque<task> local_queues::*which) noexcept {
        const auto n = victims.size();
        if (n == 0) return nullptr;
        const auto start = static_cast<std::size_t>(self.random() % n);
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned v = victims[(start + i) % n];
            local_queues& q = queues_[v];
            if (task* t = q.steal_from(q.*which, self, v)) return t;
        }
        return nullptr;
    }

    task* steal(ext::worker_context& self) noexcept {
        const auto& near = near_[self.index];
        const auto& far = far_[self.index];
        if (task* t = steal_from(near, self, &local_queues::high)) return t;
        if (task* t = steal_from(far, self, &local_queues::high)) return t;
        if (task* t = steal_from(near, self, &local_queues::staged)) return t;
        if (task* t = steal_from(near, self, &local_queues::pending)) return t;
        if (task* t = steal_from(far, self, &local_queues::staged)) return t;
        if (task* t = steal_from(far, self, &local_queues::pending)) return t;
        for (const auto* group : {&near, &far})
            for (const unsigned v : *group)
                if (task* t = take_inbox(queues_[v].inbox, [&](task& rest) { schedule(&self, rest); })) return t;
        return nullptr;
    }

    std::unique_ptr<local_queues[]> queues_;
    unsigned n_ = 0;
    std::vector<std::vector<unsigned>> near_, far_;
    alignas(cache_line_size) std::atomic<unsigned> rr_{0};
    std::atomic<unsigned> active_{~0u};  // workers allowed to take tasks (throttling)
    shared_low_queue low_;
};

}  // namespace

std::unique_ptr<ext::scheduler_policy> make_local_priority_policy() {
    return std::make_unique<local_priority_policy>();
}

}  // namespace weft::detail
