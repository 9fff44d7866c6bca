// weft's parallel algorithms and the execution layer they run on.
#pragma once

#include <weft/algorithms/all_any_none.hpp>
#include <weft/algorithms/copy.hpp>
#include <weft/algorithms/count.hpp>
#include <weft/algorithms/fill.hpp>
#include <weft/algorithms/find.hpp>
#include <weft/algorithms/for_each.hpp>
#include <weft/algorithms/for_loop.hpp>
#include <weft/algorithms/generate.hpp>
#include <weft/algorithms/induction.hpp>
#include <weft/algorithms/minmax_element.hpp>
#include <weft/algorithms/mismatch.hpp>
#include <weft/algorithms/move.hpp>
#include <weft/algorithms/reduce.hpp>
#include <weft/algorithms/reduction.hpp>
#include <weft/algorithms/replace.hpp>
#include <weft/algorithms/task_block.hpp>
#include <weft/algorithms/transform.hpp>
#include <weft/execution/executor.hpp>
#include <weft/execution/executors.hpp>
#include <weft/execution/limiting_executor.hpp>
#include <weft/execution/numa_allocator.hpp>
#include <weft/execution/placed_executors.hpp>
#include <weft/execution/parameters.hpp>
#include <weft/execution/policy.hpp>
