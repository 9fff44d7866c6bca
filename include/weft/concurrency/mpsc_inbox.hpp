// An intrusive lock-free inbox that many threads push nodes into and one consumer empties
// all at once, in push order.
#pragma once

#include <weft/config/config.hpp>

#include <atomic>

namespace weft::ext {

/// @brief Intrusive lock-free multi-producer, single-consumer inbox.
///
/// Producers CAS-push onto a Treiber stack (R. K. Treiber, "Systems Programming: Coping with
/// Parallelism", IBM RJ 5118, 1986); the consumer detaches the whole stack with one exchange
/// and reverses it, so it receives the nodes in push order. Nodes are never popped one at a
/// time, so the ABA problem of Treiber's pop does not arise, and nothing is allocated.
///
/// The link is the plain, non-atomic member `Node::*Next`: a producer writes it before the
/// release CAS that publishes the node, and the consumer reads it only after the acquire
/// exchange that takes the node, so the two never race. While a node is in the inbox its
/// link belongs to the inbox; after take_all() it belongs to the consumer again.
///
/// Two pushes by one thread come out in that order; pushes from different threads come out
/// in the order their CASes succeeded.
///
/// @tparam Node the node type.
/// @tparam Next pointer to the `Node*` member used as the link.
///
/// Example (from tests/unit/concurrency/mpsc_inbox_test.cpp):
/// @code
/// struct node { node* next = nullptr; int value = 0; };
/// weft::ext::mpsc_inbox<node, &node::next> inbox;
/// node a{nullptr, 1}, b{nullptr, 2};
/// EXPECT_TRUE(inbox.push(&a));    // was empty: a good moment to wake the consumer
/// EXPECT_FALSE(inbox.push(&b));
/// node* list = inbox.take_all();  // a, then b
/// EXPECT_EQ(list, &a);
/// EXPECT_EQ(list->next, &b);
/// EXPECT_EQ(b.next, nullptr);
/// @endcode
template <class Node, Node* Node::*Next>
class mpsc_inbox {
public:
    mpsc_inbox() = default;
    mpsc_inbox(const mpsc_inbox&) = delete;
    mpsc_inbox& operator=(const mpsc_inbox&) = delete;

    /// @brief Any thread: adds @p n to the inbox.
    /// @param n a node not currently in any inbox; its `Next` member is overwritten.
    /// @return true if the inbox was empty just before, i.e. this push starts the batch
    ///         that the next take_all() returns (the caller may want to wake the consumer).
    bool push(Node* n) noexcept {
        // relaxed: only a first guess of the head; the CAS below validates it.
        Node* head = head_.load(std::memory_order_relaxed);
        do {
            // Plain write: n is not yet published, and the release CAS publishes this link.
            n->*Next = head;
            // release: publishes *n (its link and payload) to the consumer's acquire exchange;
            // relaxed on failure: the CAS only refreshes `head` and we retry.
        } while (!head_.compare_exchange_weak(head, n, std::memory_order_release,
                                              std::memory_order_relaxed));
        return head == nullptr;
    }

    /// @brief Consumer only: takes every node in the inbox.
    /// @return the nodes in push order, linked through `Next` and ending in nullptr; or
    ///         nullptr if the inbox was empty.
    Node* take_all() noexcept {
        // acquire: synchronizes with the release CAS of every node taken (each later CAS is
        // a read-modify-write, so it continues the release sequence of the earlier ones),
        // which makes their plain `Next` links and payloads visible here.
        Node* n = head_.exchange(nullptr, std::memory_order_acquire);
        Node* fifo = nullptr;
        while (n != nullptr) {
            Node* older = n->*Next;  // plain read: ordered after the acquire exchange
            n->*Next = fifo;
            fifo = n;
            n = older;
        }
        return fifo;
    }

    /// @brief Any thread: whether the inbox looks empty; may be stale by the time it returns.
    bool empty() const noexcept {
        // relaxed: a hint; nothing is read through the pointer.
        return head_.load(std::memory_order_relaxed) == nullptr;
    }

private:
    /// Newest node, or nullptr; on its own cache line (the class is aligned and padded to
    /// one), since every producer writes it.
    alignas(cache_line_size) std::atomic<Node*> head_{nullptr};
};

}  // namespace weft::ext
