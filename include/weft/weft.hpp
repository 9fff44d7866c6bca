// weft: the umbrella header for users (weft's own code never includes it).
#pragma once

#include <weft/adapt/adaptive_chunk_size.hpp>
#include <weft/adapt/policy.hpp>
#include <weft/adapt/search.hpp>
#include <weft/algorithms.hpp>
#include <weft/config/errors.hpp>
#include <weft/counters/counters.hpp>
#include <weft/distributed.hpp>
#include <weft/futures/coroutine.hpp>
#include <weft/futures/dataflow.hpp>
#include <weft/futures/future.hpp>
#include <weft/futures/packaged_task.hpp>
#include <weft/futures/split_future.hpp>
#include <weft/futures/unwrapping.hpp>
#include <weft/futures/when_all.hpp>
#include <weft/futures/when_any.hpp>
#include <weft/lcos/lcos.hpp>
#include <weft/runtime/options.hpp>
#include <weft/runtime/runtime.hpp>
#include <weft/sched/post.hpp>
#include <weft/sched/task_group.hpp>
#include <weft/sched/task_queue.hpp>
#include <weft/sched/this_task.hpp>
#include <weft/threads/task.hpp>
