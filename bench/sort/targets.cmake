# BOTS's sort (issue #27; seed 001 ch.3 "Multisort"): cilksort, a 4-way merge sort with a
# parallel merge, on one thread, weft::task_group, tbb::task_group and OpenMP tasks; the
# kernel (sort/sort.hpp) is shared with INNCABS's Sort (inncabs/sort.cpp).
# include(${CMAKE_CURRENT_SOURCE_DIR}/sort/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(sort serial sort/serial.cpp)
weft_add_bench(sort weft sort/weft.cpp LIBS weft::weft)
weft_add_bench(sort tbb sort/tbb.cpp LIBS TBB::tbb)
weft_add_bench(sort omp sort/omp.cpp LIBS OpenMP::OpenMP_CXX)
