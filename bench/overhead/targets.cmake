# Seed 004 Fig. 9 (issue #27): the task-management overhead per task at 0-115 us of
# artificial work, weft beside std::async (one OS thread per task), oneTBB task_group and
# OpenMP tasks; bench/overhead/run runs them and prints the figure's table.
# include(${CMAKE_CURRENT_SOURCE_DIR}/overhead/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(overhead weft overhead/weft.cpp LIBS weft::weft)
weft_add_bench(overhead std_async overhead/std_async.cpp LIBS Threads::Threads)
weft_add_bench(overhead tbb overhead/tbb.cpp LIBS TBB::tbb)
weft_add_bench(overhead omp overhead/omp.cpp LIBS OpenMP::OpenMP_CXX)
