// Tests of weft::ext::mpsc_inbox: FIFO order and the was-empty result against an oracle on
// one thread, and four producers against one consumer.
#include <weft/concurrency/mpsc_inbox.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

struct node {
    node* next = nullptr;
    int value = 0;
};
using inbox_type = weft::ext::mpsc_inbox<node, &node::next>;

TEST(mpsc_inbox, example_from_the_header) {
    weft::ext::mpsc_inbox<node, &node::next> inbox;
    node a{nullptr, 1}, b{nullptr, 2};
    EXPECT_TRUE(inbox.push(&a));    // was empty: a good moment to wake the consumer
    EXPECT_FALSE(inbox.push(&b));
    node* list = inbox.take_all();  // a, then b
    EXPECT_EQ(list, &a);
    EXPECT_EQ(list->next, &b);
    EXPECT_EQ(b.next, nullptr);
}

TEST(mpsc_inbox, empty_inbox_gives_nothing) {
    inbox_type inbox;
    EXPECT_TRUE(inbox.empty());
    EXPECT_EQ(inbox.take_all(), nullptr);
    node a;
    EXPECT_TRUE(inbox.push(&a));
    EXPECT_FALSE(inbox.empty());
    EXPECT_EQ(inbox.take_all(), &a);
    EXPECT_EQ(a.next, nullptr);
    EXPECT_TRUE(inbox.empty());
    EXPECT_TRUE(inbox.push(&a));  // empty again, so the next push starts a new batch
    EXPECT_EQ(inbox.take_all(), &a);
}

// Random pushes and take_alls checked against a vector oracle: take_all returns exactly the
// nodes pushed since the previous take_all, in push order, and push reports emptiness.
TEST(mpsc_inbox, model_fifo_order_and_was_empty) {
    for (std::uint32_t seed : {1u, 2u, 3u, 4u}) {
        std::mt19937 rng(seed);
        constexpr std::size_t steps = 100'000;
        std::vector<node> pool(steps);
        std::vector<node*> oracle;
        inbox_type inbox;
        std::size_t next = 0;
        unsigned push_percent = 50;
        for (std::size_t step = 0; step < steps; ++step) {
            if (step % 1024 == 0) push_percent = 50 + rng() % 50;  // batches of 1 to ~100
            if (rng() % 100 < push_percent) {
                node* n = &pool[next];
                n->value = static_cast<int>(next++);
                ASSERT_EQ(inbox.push(n), oracle.empty()) << "seed " << seed << " step " << step;
                oracle.push_back(n);
            } else {
                node* list = inbox.take_all();
                for (node* want : oracle) {
                    ASSERT_EQ(list, want) << "seed " << seed << " step " << step;
                    list = list->next;
                }
                ASSERT_EQ(list, nullptr) << "seed " << seed << " step " << step;
                oracle.clear();
            }
            ASSERT_EQ(inbox.empty(), oracle.empty()) << "seed " << seed << " step " << step;
        }
    }
}

struct tagged_node {
    tagged_node* link = nullptr;
    std::uint32_t producer = 0;  // written before push, read by the consumer
    std::uint32_t seq = 0;
};

// Four producers push 250k nodes each; one consumer takes batches until it has them all.
// Every node must arrive exactly once, each producer's nodes in the order it pushed them.
TEST(mpsc_inbox_stress, four_producers_one_consumer) {
    constexpr std::uint32_t producers = 4;
    constexpr std::uint32_t per_producer = 250'000;
    weft::ext::mpsc_inbox<tagged_node, &tagged_node::link> inbox;
    std::vector<std::vector<tagged_node>> nodes(producers, std::vector<tagged_node>(per_producer));
    std::vector<std::size_t> was_empty_pushes(producers, 0);

    std::vector<std::thread> threads;
    for (std::uint32_t p = 0; p < producers; ++p) {
        threads.emplace_back([&, p] {
            for (std::uint32_t i = 0; i < per_producer; ++i) {
                tagged_node& n = nodes[p][i];
                n.producer = p;
                n.seq = i;
                if (inbox.push(&n)) ++was_empty_pushes[p];
            }
        });
    }

    // Consumer: since every node arrives exactly once and in per-producer order, the next
    // node from producer p must be exactly nodes[p][expected[p]].
    std::vector<std::uint32_t> expected(producers, 0);
    std::size_t received = 0;
    std::size_t batches = 0;
    const std::size_t total = std::size_t{producers} * per_producer;
    while (received < total) {
        tagged_node* list = inbox.take_all();
        if (list == nullptr) {
            std::this_thread::yield();
            continue;
        }
        ++batches;
        for (; list != nullptr; list = list->link) {
            const std::uint32_t p = list->producer;
            ASSERT_LT(p, producers);
            ASSERT_LT(expected[p], per_producer) << "producer " << p << " duplicated a node";
            ASSERT_EQ(list->seq, expected[p]) << "producer " << p << " out of order or lost";
            ASSERT_EQ(list, &nodes[p][expected[p]]);
            ++expected[p];
            ++received;
        }
    }
    for (auto& t : threads) t.join();

    EXPECT_EQ(received, total);
    for (std::uint32_t p = 0; p < producers; ++p) EXPECT_EQ(expected[p], per_producer);
    EXPECT_TRUE(inbox.empty());
    EXPECT_EQ(inbox.take_all(), nullptr);
    // Each non-empty take_all returns exactly one batch, and each batch starts with exactly
    // one push that found the inbox empty.
    std::size_t starts = 0;
    for (std::size_t c : was_empty_pushes) starts += c;
    EXPECT_EQ(starts, batches);
}

}  // namespace
