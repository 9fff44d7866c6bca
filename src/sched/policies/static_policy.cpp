// `static` and `single`: placement decided at spawn, no stealing. `static` deals new
// tasks round-robin over the workers (HPX's static scheduler); `single` is the same
// policy restricted to one worker, so that a run is deterministic (tests, debugging).
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
        if (!t.is_yield()) {
            // Round-robin over all workers, starting with the spawner itself; resumed
            // tasks too: without stealing, two tasks one worker resumes together would
            // otherwise run one after the other while another worker idles (issue #22).
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
        return q.pop_low();
    }

    bool take_back(ext::worker_context& self, task& t) noexcept override {
        return queues_[self.index].take_back(t);
    }

    ext::spawn_path spawn_path_of(unsigned /*worker*/) noexcept override {
        ext::spawn_path p;  // every spawn goes through schedule()
        if (n_ > 1) {
            p.share = &deal_one_before_running;
            p.share_arg = this;
        }
        return p;
    }

    queue_state queue_state_of(unsigned worker) const noexcept override {
        return worker < n_ ? queues_[worker].state() : queue_state{};
    }

private:
    /// spawn_path::share: our worker starts a continuation the finished task readied (the
    /// scheduler bypass), which may run for long. Nobody steals here, so a task of ours
    /// still queued would wait for it while another worker idles: deal the oldest one
    /// to the next worker in turn (issue #22).
    static void deal_one_before_running(void* self_policy, ext::worker_context& self) noexcept {
        auto* p = static_cast<static_policy*>(self_policy);
        local_queues& q = p->queues_[self.index];
        task* t = nullptr;
        if (q.staged.empty() || q.staged.steal(t) != ext::steal_status::success) {
            if (q.pending.empty() || q.pending.steal(t) != ext::steal_status::success) return;
        }
        unsigned& next = p->next_target_[self.index];
        unsigned target = (self.index + next) % p->n_;
        if (target == self.index) target = (target + 1) % p->n_;
        next = (next + 1) % p->n_;
        p->queues_[target].inbox.push(t);
        self.wake(target);  // fences, then wakes it if it parked
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
