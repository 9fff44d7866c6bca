# Issue #27: seed 001 chapter 5's recursive divide-and-conquer dynamic programs (GE, SW,
# FW-APSP), fork-join against dataflow: the serial recursion and loop, the recursion on
# weft::task_group, the tile graph on weft::dataflow, the recursion on OpenMP tasks.
# bench/rdp/run runs them (see bench/rdp/README.md). Included from bench/CMakeLists.txt.
weft_add_bench(rdp serial ${CMAKE_CURRENT_LIST_DIR}/serial.cpp)
weft_add_bench(rdp weft_forkjoin ${CMAKE_CURRENT_LIST_DIR}/weft_forkjoin.cpp LIBS weft::weft)
weft_add_bench(rdp weft_dataflow ${CMAKE_CURRENT_LIST_DIR}/weft_dataflow.cpp LIBS weft::weft)
weft_add_bench(rdp omp ${CMAKE_CURRENT_LIST_DIR}/omp.cpp LIBS OpenMP::OpenMP_CXX)
