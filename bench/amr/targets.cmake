# Seed 004's AMR application (issue #27): the 1+1-D semilinear wave equation with
# Berger-Oliger refinement and tapered interfaces; serial, weft with a barrier per level
# step, weft dataflow without barriers. bench/amr/run runs Figs. 5-6 and the grain sweep.
weft_add_bench(amr serial amr/serial.cpp)
weft_add_bench(amr weft_barrier amr/weft_barrier.cpp LIBS weft::weft)
weft_add_bench(amr weft_dataflow amr/weft_dataflow.cpp LIBS weft::weft)
# The programs check that every schedule and grain gives the same bits: keep a*b+c two
# roundings wherever the loop is (vectorised or not) even when built for FMA hardware.
foreach(target IN ITEMS bench_amr_serial bench_amr_weft_barrier bench_amr_weft_dataflow)
  target_compile_options(${target} PRIVATE -ffp-contract=off)
endforeach()
