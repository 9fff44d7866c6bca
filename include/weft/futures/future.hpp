// weft::future, weft::shared_future, weft::promise, make_ready_future and async: results
// of tasks that waiters suspend on, and continuations (then) that run when they are ready.
// The header users include: it gathers the headers that hold each of these.
#pragma once

#include <weft/futures/async.hpp>
#include <weft/futures/detail/future_core.hpp>
#include <weft/futures/make_ready_future.hpp>
#include <weft/futures/promise.hpp>
