// weft::ttg: the Template Task Graph (issue #26; seed 001 ch.6) on weft: keyed, typed
// task graphs whose instances are weft tasks, on one locality or many.
//
// @code
// #include <weft/ttg.hpp>
// namespace ttg = weft::ttg;
// ttg::Edge<int, double> e("e");
// auto producer = ttg::make_tt<int>([](const int& k, std::tuple<ttg::Out<int, double>>& out) {
//     ttg::send<0>(k, 1.5 * k, out);
// }, ttg::edges(), ttg::edges(e), "producer");
// auto consumer = ttg::make_tt([](const int& k, const double& v, std::tuple<>&) { use(k, v); },
//                              ttg::edges(e), ttg::edges(), "consumer");
// ttg::make_graph_executable(producer);
// ttg::execute();
// for (int k = 0; k < 10; ++k) producer->invoke(k);
// ttg::fence();
// @endcode
#pragma once

#include <weft/ttg/detail/core.hpp>
#include <weft/ttg/edge.hpp>
#include <weft/ttg/graph.hpp>
#include <weft/ttg/tt.hpp>
