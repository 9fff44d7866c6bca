// weft::ttg on one locality (issue #26): every terminal kind and body form against
// results computed serially, cycles, streams (count, size, finalize), broadcast, pull
// edges, pure tasks, priorities, the graph check, Dot, and the errors: a second value
// for a key, exceptions of task bodies. On every scheduler policy.
#include "support/policy_test.hpp"

#include <weft/ttg.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace ttg = weft::ttg;
using weft::test::policy_test;
class ttg_test : public policy_test {};
WEFT_INSTANTIATE_FOR_ALL_POLICIES(ttg_test);

/// Results gathered by sink tasks, from any worker.
template <class K, class V>
struct results {
    std::mutex m;
    std::map<K, V> got;
    void put(const K& k, V v) {
        std::lock_guard lock(m);
        got.emplace(k, std::move(v));
    }
};

TEST_P(ttg_test, two_inputs_join_per_key) {
    in_task([] {
        ttg::Edge<int, int> a("a"), b("b");
        results<int, long> r;
        auto pa = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, int>>& out) { ttg::send<0>(k, k * 2, out); },
                                    ttg::edges(), ttg::edges(a), "make-a");
        auto pb = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, int>>& out) { ttg::send<0>(k, k + 7, out); },
                                    ttg::edges(), ttg::edges(b), "make-b");
        auto sum = ttg::make_tt([&r](const int& k, int x, int y, std::tuple<>&) { r.put(k, long{x} * y); },
                                ttg::edges(a, b), ttg::edges(), "join", {"x", "y"});
        EXPECT_TRUE(ttg::make_graph_executable(pa, pb));
        ttg::execute();
        for (int k = 0; k < 500; ++k) {
            pa->invoke(k);
            pb->invoke(499 - k);
        }
        ttg::fence();
        ASSERT_EQ(r.got.size(), 500u);
        for (int k = 0; k < 500; ++k) EXPECT_EQ(r.got[k], long{k * 2} * (k + 7));
    });
}

TEST_P(ttg_test, a_cycle_unfolds_at_run_time) {
    // A template task feeding its own input: key k sends k + 1 until 2,000.
    in_task([] {
        ttg::Edge<int, long> loop("loop");
        std::atomic<long> last{0};
        std::atomic<int> runs{0};
        auto step = ttg::make_tt(
            [&](const int& k, long acc, std::tuple<ttg::Out<int, long>>& out) {
                runs.fetch_add(1);
                if (k < 2000) ttg::send<0>(k + 1, acc + k, out);
                else last = acc;
            },
            ttg::edges(loop), ttg::edges(loop), "step");
        ttg::make_graph_executable(step);
        step->invoke(0, 0L);
        ttg::fence();
        EXPECT_EQ(runs.load(), 2001);
        EXPECT_EQ(last.load(), 1999L * 2000 / 2);
    });
}

TEST_P(ttg_test, control_edges_and_data_edges) {
    in_task([] {
        ttg::Edge<int, void> go("go");    // keys only
        ttg::Edge<void, int> value("v");  // values only: one instance at a time
        std::atomic<long> sum{0};
        auto src = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, void>>& out) { ttg::sendk<0>(k, out); }, ttg::edges(),
            ttg::edges(go), "src");
        auto mid = ttg::make_tt([](const int& k, std::tuple<ttg::Out<void, int>>& out) { ttg::sendv<0>(k, out); },
                                ttg::edges(go), ttg::edges(value), "mid");
        auto sink = ttg::make_tt([&sum](int v, std::tuple<>&) { sum += v; }, ttg::edges(value), ttg::edges(), "sink");
        ttg::make_graph_executable(src);
        for (int k = 1; k <= 300; ++k) src->invoke(k);
        ttg::fence();
        EXPECT_EQ(sum.load(), 300L * 301 / 2);
    });
}

TEST_P(ttg_test, streams_with_count_size_and_finalize) {
    in_task([] {
        // Keys < 100: 4 values each, the stream's default count. Keys >= 100: k - 99
        // values, into a stream with no default count, ended by its size (odd k, set
        // first) or by finalize (even k, after the values).
        ttg::Edge<int, int> counted("counted"), open("open");
        results<int, int> r;
        auto gen = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, int>, ttg::Out<int, int>>& out) {
                if (k < 100) {
                    for (int i = 1; i <= 4; ++i) ttg::send<0>(k, i, out);
                    return;
                }
                const int n = k - 99;
                if (k % 2 == 1) ttg::set_size<1>(k, static_cast<std::size_t>(n), out);
                for (int i = 1; i <= n; ++i) ttg::send<1>(k, i, out);
                if (k % 2 == 0) ttg::finalize<1>(k, out);
            },
            ttg::edges(), ttg::edges(counted, open), "gen");
        auto add = [&r](const int& k, int total, std::tuple<>&) { r.put(k, total); };
        auto by_count = ttg::make_tt(add, ttg::edges(counted), ttg::edges(), "by-count");
        auto by_end = ttg::make_tt(add, ttg::edges(open), ttg::edges(), "by-end");
        by_count->template set_input_reducer<0>([](int& acc, int&& v) { acc += v; }, 4);
        by_end->template set_input_reducer<0>([](int& acc, int&& v) { acc += v; });
        ttg::make_graph_executable(gen);
        for (int k = 0; k < 20; ++k) gen->invoke(k);
        for (int k = 100; k < 140; ++k) gen->invoke(k);
        ttg::fence();
        ASSERT_EQ(r.got.size(), 60u);
        for (int k = 0; k < 20; ++k) EXPECT_EQ(r.got[k], 10);
        for (int k = 100; k < 140; ++k) EXPECT_EQ(r.got[k], (k - 99) * (k - 98) / 2) << k;
    });
}

TEST_P(ttg_test, stream_misuse_is_reported) {
    in_task([] {
        ttg::Edge<int, int> e("e");
        auto gen = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, int>>& out) {
                for (int i = 0; i < 3; ++i) ttg::send<0>(k, i, out);  // one more than the count
            },
            ttg::edges(), ttg::edges(e), "gen");
        auto sink = ttg::make_tt([](const int&, int, std::tuple<>&) {}, ttg::edges(e), ttg::edges(), "sink", {"s"});
        sink->template set_input_reducer<0>([](int& a, int&& b) { a += b; }, 2);
        ttg::make_graph_executable(gen);
        gen->invoke(7);
        // Two values complete key 7's stream, which runs; the third starts a new instance
        // of key 7 that waits for a second value, and that is no error.
        EXPECT_NO_THROW(ttg::fence());
        EXPECT_THROW(sink->template finalize_argstream<0>(8), weft::error);  // finalized empty
        EXPECT_THROW(gen->template out<0>().finalize(9), weft::error);
        auto plain = ttg::make_tt([](const int&, int, std::tuple<>&) {}, ttg::edges(e), ttg::edges(), "plain");
        EXPECT_THROW(plain->template set_argstream_size<0>(1, 3), weft::error);  // not a stream
        EXPECT_THROW(plain->template finalize_argstream<0>(1), weft::error);
    });
}

TEST_P(ttg_test, a_reducer_returning_the_new_value) {
    in_task([] {
        ttg::Edge<int, std::vector<int>> in("in");
        results<int, std::vector<int>> r;
        auto gen = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, std::vector<int>>>& out) {
                for (int i = 0; i < 8; ++i) ttg::send<0>(k, std::vector<int>{k * 8 + i}, out);
            },
            ttg::edges(), ttg::edges(in), "gen");
        auto cat = ttg::make_tt([&r](const int& k, std::vector<int> v, std::tuple<>&) { r.put(k, std::move(v)); },
                                ttg::edges(in), ttg::edges(), "cat");
        cat->template set_input_reducer<0>(
            [](std::vector<int>&& a, std::vector<int>&& b) {
                a.insert(a.end(), b.begin(), b.end());
                return std::move(a);
            },
            8);
        ttg::make_graph_executable(gen);
        for (int k = 0; k < 50; ++k) gen->invoke(k);
        ttg::fence();
        ASSERT_EQ(r.got.size(), 50u);
        for (auto& [k, v] : r.got) {
            std::sort(v.begin(), v.end());
            std::vector<int> want(8);
            std::iota(want.begin(), want.end(), k * 8);
            EXPECT_EQ(v, want);
        }
    });
}

TEST_P(ttg_test, broadcast_reaches_every_key) {
    in_task([] {
        ttg::Edge<int, double> e("e");
        results<int, double> r;
        auto root = ttg::make_tt<int>(
            [](const int&, std::tuple<ttg::Out<int, double>>& out) {
                std::vector<int> keys(64);
                std::iota(keys.begin(), keys.end(), 0);
                ttg::broadcast<0>(keys, 2.5, out);
            },
            ttg::edges(), ttg::edges(e), "root");
        auto leaf = ttg::make_tt([&r](const int& k, const double& v, std::tuple<>&) { r.put(k, v * k); },
                                 ttg::edges(e), ttg::edges(), "leaf");
        ttg::make_graph_executable(root);
        root->invoke(0);
        ttg::fence();
        ASSERT_EQ(r.got.size(), 64u);
        for (int k = 0; k < 64; ++k) EXPECT_EQ(r.got[k], 2.5 * k);
    });
}

TEST_P(ttg_test, pure_and_tuple_bodies) {
    in_task([] {
        ttg::Edge<int, int> a("a"), b("b");
        results<int, int> r;
        auto sq = ttg::make_tt([](const int& k, int x) { return k * x; }, ttg::edges(a), ttg::edges(b), "pure");
        auto sink = ttg::make_tt([&r](const int& k, std::tuple<int>& in, std::tuple<>&) { r.put(k, std::get<0>(in)); },
                                 ttg::edges(b), ttg::edges(), "tuple-sink");
        ttg::make_graph_executable(sq);
        for (int k = 0; k < 100; ++k) sq->invoke(k, k + 1);
        ttg::fence();
        ASSERT_EQ(r.got.size(), 100u);
        for (int k = 0; k < 100; ++k) EXPECT_EQ(r.got[k], k * (k + 1));
    });
}

TEST_P(ttg_test, pull_edges_read_their_container) {
    in_task([] {
        std::vector<long> data(100);
        std::iota(data.begin(), data.end(), 1000);
        for (const bool lazy : {false, true}) {
            ttg::Edge<int, long> pulled("data", true, data, [](int k) { return static_cast<std::size_t>(k); },
                                        [](int) { return 0; }, lazy);
            ttg::Edge<int, int> pushed("pushed");
            results<int, long> r;
            auto src = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, int>>& out) { ttg::send<0>(k, 2, out); },
                                         ttg::edges(), ttg::edges(pushed), "src");
            auto use = ttg::make_tt([&r](const int& k, long d, int m, std::tuple<>&) { r.put(k, d * m); },
                                    ttg::edges(pulled, pushed), ttg::edges(), "use");
            auto only = ttg::make_tt([&r](const int& k, long d, std::tuple<>&) { r.put(1000 + k, d); },
                                     ttg::edges(pulled), ttg::edges(), "only-pull");
            ttg::make_graph_executable(src, only);
            for (int k = 0; k < 100; ++k) {
                src->invoke(k);
                only->invoke(k);
            }
            ttg::fence();
            ASSERT_EQ(r.got.size(), 200u);
            for (int k = 0; k < 100; ++k) {
                EXPECT_EQ(r.got[k], 2 * (1000 + k));
                EXPECT_EQ(r.got[1000 + k], 1000 + k);
            }
        }
    });
}

TEST_P(ttg_test, a_second_value_for_a_key_is_an_error_at_fence) {
    in_task([] {
        // (An instance is checked while it waits for its other inputs: "later" never comes.)
        ttg::Edge<int, int> e("e"), later("later");
        auto src = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, int>, ttg::Out<int, int>>& out) {
                ttg::send<0>(k, 1, out);
                ttg::send<0>(k, 2, out);
            },
            ttg::edges(), ttg::edges(e, later), "twice");
        auto dst = ttg::make_tt([](const int&, int, int, std::tuple<>&) {}, ttg::edges(e, later), ttg::edges(), "single",
                                {"value", "later"});
        ttg::make_graph_executable(src);
        src->invoke(42);
        try {
            ttg::fence();
            ADD_FAILURE() << "no error";
        } catch (const weft::error& x) {
            const std::string what = x.what();
            EXPECT_NE(what.find("input terminal 0 ('value') of template task 'single' received a second value for key 42"),
                      std::string::npos)
                << what;
        }
    });
}

TEST_P(ttg_test, exceptions_of_bodies_reach_fence) {
    in_task([] {
        auto one = ttg::make_tt<int>(
            [](const int& k, std::tuple<>&) {
                if (k == 3) throw std::out_of_range("three");
            },
            ttg::edges(), ttg::edges(), "one");
        for (int k = 0; k < 10; ++k) one->invoke(k);
        EXPECT_THROW(ttg::fence(), std::out_of_range);
        for (int k = 0; k < 4; ++k) one->invoke(3);
        try {
            ttg::fence();
            ADD_FAILURE() << "no exception";
        } catch (const weft::exception_list& l) {
            EXPECT_EQ(l.size(), 4u);
        }
        ttg::fence();  // nothing left
    });
}

TEST_P(ttg_test, unconnected_terminals_are_named) {
    in_task([] {
        ttg::Edge<int, int> nowhere("nowhere"), ok("ok"), from_nobody("from-nobody");
        auto a = ttg::make_tt<int>([](const int&, std::tuple<ttg::Out<int, int>, ttg::Out<int, int>>&) {}, ttg::edges(),
                                   ttg::edges(nowhere, ok), "a", {}, {"result", "fine"});
        auto c = ttg::make_tt([](const int&, int, int, std::tuple<>&) {}, ttg::edges(ok, from_nobody), ttg::edges(), "c",
                              {"x", "arg"});
        try {
            ttg::make_graph_executable(a);
            ADD_FAILURE() << "no error";
        } catch (const weft::error& x) {
            const std::string what = x.what();
            EXPECT_NE(what.find("output terminal 0 ('result') of template task 'a' sends on edge 'nowhere'"),
                      std::string::npos)
                << what;
            EXPECT_NE(what.find("input terminal 1 ('arg') of template task 'c' is joined to edge 'from-nobody'"),
                      std::string::npos)
                << what;
            EXPECT_EQ(what.find("'fine'"), std::string::npos) << what;
        }
        // As a root too, c's inputs may come from invoke: only a's output is left.
        try {
            ttg::make_graph_executable(a, c);
            ADD_FAILURE() << "no error";
        } catch (const weft::error& x) {
            EXPECT_EQ(std::string(x.what()).find("from-nobody"), std::string::npos) << x.what();
        }
    });
}

TEST_P(ttg_test, dot_prints_the_graph) {
    in_task([] {
        ttg::Edge<int, int> e("e1");
        auto a = ttg::make_tt<int>([](const int&, std::tuple<ttg::Out<int, int>>&) {}, ttg::edges(), ttg::edges(e),
                                   "A", {}, {"o"});
        auto b = ttg::make_tt([](const int&, int, std::tuple<>&) {}, ttg::edges(e), ttg::edges(), "B", {"i"});
        const std::string dot = ttg::Dot{}(a);
        EXPECT_NE(dot.find("digraph"), std::string::npos) << dot;
        EXPECT_NE(dot.find("\"A#"), std::string::npos) << dot;
        EXPECT_NE(dot.find("-> \"B#"), std::string::npos) << dot;
        EXPECT_NE(dot.find("e1: o -> i"), std::string::npos) << dot;
    });
}

TEST_P(ttg_test, a_body_that_waits_for_an_instance_it_readied_does_not_hang) {
    // The last instance a body readies is held back for the bypass slot at its end
    // (detail/hold.hpp); a body that then waits for that instance must see it run: the
    // wait's suspension spawns it. Regression test for the hold (on `single`, nothing
    // else would run it).
    in_task([] {
        ttg::Edge<int, void> go("go"), first("first"), last("last");
        std::vector<weft::promise<int>> got(40);
        std::vector<weft::future<int>> futures;
        for (auto& p : got) futures.push_back(p.get_future());
        std::atomic<long> seen{0};
        auto waiter = ttg::make_tt(
            [&](const int& k, std::tuple<ttg::Out<int, void>, ttg::Out<int, void>>& out) {
                ttg::sendk<0>(k, out);  // spawned when the next one comes
                ttg::sendk<1>(k, out);  // held: the body's last send
                seen += futures[static_cast<std::size_t>(k)].get();
            },
            ttg::edges(go), ttg::edges(first, last), "waiter");
        std::atomic<int> firsts{0};
        auto a = ttg::make_tt([&firsts](const int&, std::tuple<>&) { firsts.fetch_add(1); }, ttg::edges(first),
                              ttg::edges(), "first");
        auto b = ttg::make_tt([&](const int& k, std::tuple<>&) { got[static_cast<std::size_t>(k)].set_value(k); },
                              ttg::edges(last), ttg::edges(), "last");
        auto start = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, void>>& out) { ttg::sendk<0>(k, out); },
                                       ttg::edges(), ttg::edges(go), "start");
        ttg::make_graph_executable(start);
        for (int k = 0; k < 40; ++k) start->invoke(k);
        ttg::fence();
        EXPECT_EQ(seen.load(), 39L * 40 / 2);
        EXPECT_EQ(firsts.load(), 40);
    });
}

TEST(ttg_hold, a_chain_runs_on_one_worker_through_the_bypass) {
    // Each instance of a chain is the last (only) one its predecessor readies: it takes
    // the bypass slot and runs next on the same worker, never through the queue where
    // the other (idle) worker would steal it. So the chain changes worker at most once,
    // after the start, which a plain thread spawns.
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    weft::runtime rt(cfg);
    ttg::Edge<int, void> next("next");
    std::vector<int> where(5001, -1);
    auto step = ttg::make_tt(
        [&where](const int& k, std::tuple<ttg::Out<int, void>>& out) {
            where[static_cast<std::size_t>(k)] = weft::this_task::worker_index();
            if (k < 5000) ttg::sendk<0>(k + 1, out);
        },
        ttg::edges(next), ttg::edges(next), "step");
    auto start = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, void>>& out) { ttg::sendk<0>(k, out); },
                                   ttg::edges(), ttg::edges(next), "start");
    ttg::make_graph_executable(start);
    start->invoke(0);
    ttg::fence();
    int moves = 0;
    for (std::size_t k = 1; k < where.size(); ++k) {
        ASSERT_NE(where[k], -1) << k;
        moves += where[k] != where[k - 1] ? 1 : 0;
    }
    EXPECT_LE(moves, 1);
}

TEST_P(ttg_test, move_only_values) {
    // std::unique_ptr values through a join, a cycle, a stream (reducer in place) and a
    // pure task; a send of one to two input terminals is an error (each would need a
    // copy), reported by fence().
    in_task([] {
        using ip = std::unique_ptr<long>;
        ttg::Edge<int, ip> a("a"), b("b"), loop("loop"), stream("stream"), pure_out("pure-out");
        results<int, long> joined, summed;
        std::atomic<long> last{0};
        auto pa = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, ip>>& out) { ttg::send<0>(k, std::make_unique<long>(k), out); },
                                    ttg::edges(), ttg::edges(a), "make-a");
        auto pb = ttg::make_tt<int>(
            [](const int& k, std::tuple<ttg::Out<int, ip>, ttg::Out<int, ip>>& out) {
                ttg::send<0>(k, std::make_unique<long>(2 * k), out);
                for (int i = 0; i < 4; ++i) ttg::send<1>(k, std::make_unique<long>(k + i), out);
            },
            ttg::edges(), ttg::edges(b, stream), "make-b");
        auto join = ttg::make_tt([&joined](const int& k, ip x, ip y, std::tuple<>&) { joined.put(k, *x * *y); },
                                 ttg::edges(a, b), ttg::edges(), "join", {"x", "y"});
        auto sum = ttg::make_tt([&summed](const int& k, ip&& s, std::tuple<>&) { summed.put(k, *s); }, ttg::edges(stream),
                                ttg::edges(), "sum", {"values"});
        sum->template set_input_reducer<0>([](ip& acc, ip&& v) { *acc += *v; }, 4);
        auto step = ttg::make_tt(
            [&last](const int& k, ip&& acc, std::tuple<ttg::Out<int, ip>>& out) {
                *acc += k;
                if (k < 100) ttg::send<0>(k + 1, std::move(acc), out);
                else last = *acc;
            },
            ttg::edges(loop), ttg::edges(loop), "step");
        auto pure = ttg::make_tt([](const int& k, ip&& v) { return std::make_unique<long>(*v + k); }, ttg::edges(pure_out),
                                 ttg::edges(loop), "pure", {"v"});
        ttg::make_graph_executable(pa, pb, pure);
        for (int k = 0; k < 200; ++k) {
            pa->invoke(k);
            pb->invoke(k);
        }
        pure->invoke(0, std::make_unique<long>(0));
        ttg::fence();
        ASSERT_EQ(joined.got.size(), 200u);
        ASSERT_EQ(summed.got.size(), 200u);
        for (int k = 0; k < 200; ++k) {
            EXPECT_EQ(joined.got[k], 2L * k * k);
            EXPECT_EQ(summed.got[k], 4L * k + 6);
        }
        EXPECT_EQ(last.load(), 100L * 101 / 2);

        // One value, two receivers.
        ttg::Edge<int, ip> both("both");
        auto src = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, ip>>& out) { ttg::send<0>(k, std::make_unique<long>(k), out); },
                                     ttg::edges(), ttg::edges(both), "src");
        auto r1 = ttg::make_tt([](const int&, ip&&, std::tuple<>&) {}, ttg::edges(both), ttg::edges(), "r1");
        auto r2 = ttg::make_tt([](const int&, ip&&, std::tuple<>&) {}, ttg::edges(both), ttg::edges(), "r2");
        ttg::make_graph_executable(src);
        src->invoke(1);
        try {
            ttg::fence();
            ADD_FAILURE() << "no error";
        } catch (const weft::error& e) {
            EXPECT_NE(std::string(e.what()).find("move-only"), std::string::npos) << e.what();
        }
    });
}

TEST_P(ttg_test, every_root_may_be_fed_by_invoke_alone) {
    // Regression: make_graph_executable took the first N template tasks of a depth-first
    // walk for the N roots, so a later root with an input fed by invoke alone was
    // reported as unconnected when the first root's successors came before it.
    in_task([] {
        ttg::Edge<int, int> e("e"), fed("fed-by-invoke");
        std::atomic<int> got{0};
        auto first = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, int>>& out) { ttg::send<0>(k, k, out); },
                                       ttg::edges(), ttg::edges(e), "first");
        auto next = ttg::make_tt([&got](const int&, int v, std::tuple<>&) { got += v; }, ttg::edges(e), ttg::edges(), "next");
        auto second = ttg::make_tt([&got](const int&, int v, std::tuple<>&) { got += v; }, ttg::edges(fed), ttg::edges(),
                                   "second", {"v"});
        EXPECT_TRUE(ttg::make_graph_executable(first, second));
        first->invoke(3);
        second->invoke(1, 4);
        ttg::fence();
        EXPECT_EQ(got.load(), 7);
    });
}

TEST(ttg_single, priomap_orders_ready_instances) {
    // One worker: the instances invoked by the running task wait until it suspends in
    // fence(); then the high-priority ones run first.
    weft::runtime_config cfg;
    cfg.scheduler = "single";
    cfg.threads = 1;
    cfg.bind = false;
    weft::runtime rt(cfg);
    std::vector<int> order;
    weft::async([&order] {
        auto t = ttg::make_tt<int>([&order](const int& k, std::tuple<>&) { order.push_back(k); }, ttg::edges(),
                                   ttg::edges(), "prio");
        t->set_priomap([](const int& k) { return k % 2 == 0 ? 1 : 0; });
        for (int k = 0; k < 20; ++k) t->invoke(k);
        ttg::fence();
    }).get();
    ASSERT_EQ(order.size(), 20u);
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(order[i] % 2, 0) << i;
    for (std::size_t i = 10; i < 20; ++i) EXPECT_EQ(order[i] % 2, 1) << i;
}

TEST(ttg_single, fence_from_a_plain_thread) {
    weft::runtime_config cfg;
    cfg.threads = 2;
    cfg.bind = false;
    weft::runtime rt(cfg);
    std::atomic<int> n{0};
    auto t = ttg::make_tt<int>([&n](const int&, std::tuple<>&) { n.fetch_add(1); }, ttg::edges(), ttg::edges(), "t");
    for (int k = 0; k < 1000; ++k) t->invoke(k);
    ttg::fence();
    EXPECT_EQ(n.load(), 1000);
}

}  // namespace
