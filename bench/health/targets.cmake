# BOTS's health (issue #27; seed 001 ch.3): the Colombian health-care simulation, a task
# per village per time step (--input=test|small|medium|large, --cutoff=D); the serial
# floor, weft::task_group, oneTBB task_group and OpenMP tasks. Checked against the results
# published with BOTS's input files. bench/inncabs/health.cpp is INNCABS's std::async port.
# include(${CMAKE_CURRENT_SOURCE_DIR}/health/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(health serial health/serial.cpp)
weft_add_bench(health weft health/weft.cpp LIBS weft::weft)
weft_add_bench(health tbb health/tbb.cpp LIBS TBB::tbb)
weft_add_bench(health omp health/omp.cpp LIBS OpenMP::OpenMP_CXX)
