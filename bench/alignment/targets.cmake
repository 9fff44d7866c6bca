# BOTS's alignment (issue #27): ClustalW's pairwise protein alignment (Myers-Miller), a
# task per pair of a generated protein set (--nseqs=N); the serial floor,
# weft::task_group (tasks on 2 MiB stacks of their own), oneTBB task_group and OpenMP
# tasks. bench/inncabs/alignment.cpp is INNCABS's std::async port.
# include(${CMAKE_CURRENT_SOURCE_DIR}/alignment/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(alignment serial alignment/serial.cpp)
weft_add_bench(alignment weft alignment/weft.cpp LIBS weft::weft)
weft_add_bench(alignment tbb alignment/tbb.cpp LIBS TBB::tbb)
weft_add_bench(alignment omp alignment/omp.cpp LIBS OpenMP::OpenMP_CXX)
