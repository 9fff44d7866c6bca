# BOTS's floorplan (issue #27): branch-and-bound placement of a chip's cells, a task per
# shape and start tried (--input=5|15|20, built-in chips, default 20; --cutoff=D); the
# kernel is shared with bench/inncabs/floorplan.cpp.
# include(${CMAKE_CURRENT_SOURCE_DIR}/floorplan/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(floorplan serial floorplan/serial.cpp)
weft_add_bench(floorplan weft floorplan/weft.cpp LIBS weft::weft)
weft_add_bench(floorplan tbb floorplan/tbb.cpp LIBS TBB::tbb)
weft_add_bench(floorplan omp floorplan/omp.cpp LIBS OpenMP::OpenMP_CXX)
