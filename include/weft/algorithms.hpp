// weft's parallel algorithms and the execution layer they run on.
#pragma once

#include <weft/algorithms/copy.hpp>
#include <weft/algorithms/fill.hpp>
#include <weft/algorithms/for_each.hpp>
#include <weft/algorithms/reduce.hpp>
#include <weft/algorithms/transform.hpp>
#include <weft/execution/executor.hpp>
#include <weft/execution/executors.hpp>
#include <weft/execution/parameters.hpp>
#include <weft/execution/policy.hpp>
