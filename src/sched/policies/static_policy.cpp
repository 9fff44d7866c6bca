// `static` and `single`: placement decided at spawn. `static` deals new tasks
// round-robin over the workers (HPX's static scheduler) and does not balance load: a
// worker takes another's task only when it has nothing at all, which then waits behind
// that worker's running task while this one would idle (issue #22: no policy leaves a
// worker idle while a task is ready). `single` is the same policy restricted to one
// worker, so that a run is deterministic (tests, debugging).
#include "policies/local_queues.hpp"
#include "policies/policies.hpp"

#include <memory>

namespace weft::detail {
namespace {

class static_policy : public ext::scheduler_policy {
public:
    explicit static_policy(bool single) : single_(single) {}

    std::string_view name() const noexcept override { return single_ ? "single" : "static"; }
    unsigned max_workers() const noexcept override { return single_ ? 1u : ~0u; }

    void attach(const std::vector<ext::worker_info>& workers) override {
        n_ = static_cast<unsigned>(workers.size());
        queues_ = std::make_unique<local_queues[]>(n_);
        next_target_.assign(n_, 0);
    }

    ext::placement schedule(ext::worker_context* self, task& t) override {
        if (self == nullptr) return place_from_outside(queues_.get(), n_, rr_, t);
        unsigned target = self->index;
        if (!t.is_resumed() && !t.is_yield()) {
            // Round-robin over all workers, starting with the spawner itself.
            unsigned& next = next_target_[self->index];
            target = (self->index + next) % n_;
            next = (next + 1) % n_;
        }
        if (target != self->index) {
            queues_[target].inbox.push(&t);
            return {target};
        }
        local_queues& q = queues_[target];
        if (!q.push_local(t)) q.push_low(t);
        return {};
    }

    task* next_task(ext::worker_context& self) noexcept override {
        local_queues& q = queues_[self.index];
        if (!q.inbox.empty()) {
            for (task* t = q.inbox.take_all(); t != nullptr;) {
                task* next = t->next;
                t->next = nullptr;
                try {
                    if (!q.push_local(*t)) q.push_low(*t);
                } catch (...) {
                    std::terminate();  // a deque could not grow: out of memory
                }
                t = next;
            }
        }
        if (task* t = q.pop_own(self)) return t;
        if (task* t = q.pop_yielded()) return t;
        if (task* t = q.pop_low()) return t;
        return take_waiting(self);
    }

    bool take_back(ext::worker_context& self, task& t) noexcept override {
        return queues_[self.index].take_back(t);
    }

    queue_state queue_state_of(unsigned worker) const noexcept override {
        return worker < n_ ? queues_[worker].state() : queue_state{};
    }

private:
    /// An idle worker takes the oldest task another worker has queued (resumed first:
    /// it waits longest), or what waits in its inbox, from the next worker on.
    task* take_waiting(ext::worker_context& self) noexcept {
        for (unsigned k = 1; k < n_; ++k) {
            const unsigned v = (self.index + k) % n_;
            local_queues& vq = queues_[v];
            if (task* t = vq.steal_from(vq.pending, self, v)) return t;
            if (task* t = vq.steal_from(vq.high, self, v)) return t;
            if (task* t = vq.steal_from(vq.staged, self, v)) return t;
            local_queues& mine = queues_[self.index];
            if (task* t = take_inbox(vq.inbox, [&mine](task& rest) {
                    if (!mine.push_local(rest)) mine.push_low(rest);
                }))
                return t;
        }
        return nullptr;
    }

    bool single_;
    unsigned n_ = 0;
    std::unique_ptr<local_queues[]> queues_;
    std::vector<unsigned> next_target_;  // per worker, owner only
    alignas(cache_line_size) std::atomic<unsigned> rr_{0};
};

}  // namespace

std::unique_ptr<ext::scheduler_policy> make_static_policy() { return std::make_unique<static_policy>(false); }
std::unique_ptr<ext::scheduler_policy> make_single_policy() { return std::make_unique<static_policy>(true); }

}  // namespace weft::detail
