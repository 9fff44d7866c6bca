# BOTS's strassen (issue #27; seed 001 ch.3-4): Strassen-Winograd matrix multiplication on
# one thread, weft::task_group, tbb::task_group and OpenMP tasks; the kernel
# (strassen/strassen.hpp) is shared with INNCABS's Strassen (inncabs/strassen.cpp).
# include(${CMAKE_CURRENT_SOURCE_DIR}/strassen/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(strassen serial strassen/serial.cpp)
weft_add_bench(strassen weft strassen/weft.cpp LIBS weft::weft)
weft_add_bench(strassen tbb strassen/tbb.cpp LIBS TBB::tbb)
weft_add_bench(strassen omp strassen/omp.cpp LIBS OpenMP::OpenMP_CXX)
