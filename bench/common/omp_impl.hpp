// The impl= name of an OpenMP anchor: omp-libgomp with g++, omp-libomp with clang++
// (scripts/bench builds each OpenMP program with both); -DWEFT_BENCH_OMP_IMPL overrides.
#pragma once

#if !defined(WEFT_BENCH_OMP_IMPL)
#if defined(__clang__)
#define WEFT_BENCH_OMP_IMPL "omp-libomp"
#else
#define WEFT_BENCH_OMP_IMPL "omp-libgomp"
#endif
#endif
