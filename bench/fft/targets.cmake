# BOTS's fft (issue #27; seed 001 §3): Cilk's recursive mixed-radix Cooley-Tukey FFT of
# n complex doubles (--n=N, default 2^23), a task per half of every split loop and per
# sub-transform; the kernels are shared with bench/inncabs/fft.cpp.
# include(${CMAKE_CURRENT_SOURCE_DIR}/fft/targets.cmake) from bench/CMakeLists.txt.
weft_add_bench(fft serial fft/serial.cpp)
weft_add_bench(fft weft fft/weft.cpp LIBS weft::weft)
weft_add_bench(fft tbb fft/tbb.cpp LIBS TBB::tbb)
weft_add_bench(fft omp fft/omp.cpp LIBS OpenMP::OpenMP_CXX)
