// <weft/main.hpp>: a program's unchanged `int main(int argc, char** argv)` (or `int
// main()`) runs as weft's first task, like HPX's hpx_main.hpp. Include it in the file
// that defines main and link the weft::main target:
//
//   #include <weft/main.hpp>                // CMake: target_link_libraries(app PRIVATE weft::main)
//   int main(int argc, char** argv) {       // a weft task named "main", on an 8 MiB stack
//       auto f = weft::async([] { return 6 * 7; });
//       return f.get() == 42 ? 0 : 1;
//   }
//
// What main sees and what the program does are weft::run's (runtime.hpp): the runtime
// starts from WEFT_* and the --weft:* options before main runs, and argv reaches main
// without those options; main runs on a stack of runtime_config::main_stack_size bytes
// (8 MiB by default, as an OS main thread's; --weft:main-stack-size=BYTES); the program
// ends once main and every task it spawned have finished, with main's return value (0
// when main falls off its end, as C++ promises). An exception escaping main ends the
// program as it would without weft (std::terminate). Under mpirun main runs on locality
// 0 only, or on every locality with --weft:spmd.
//
// How: weft::main links with `-Wl,--wrap=main`, so the C runtime's call of main reaches
// weft's __wrap_main (src/main/wrap_main.cpp), which starts the runtime and runs the
// program's main, then called __real_main, inside it. Without CMake, link
// libweft_main.a with those flags. main itself is not renamed: its implicit `return 0`
// and its name in debuggers stay.
#pragma once

#if !defined(WEFT_WRAP_MAIN)
#error "<weft/main.hpp> needs the weft::main link target (CMake: target_link_libraries(<app> PRIVATE weft::main)); without CMake, define WEFT_WRAP_MAIN and link libweft_main.a with -Wl,--wrap=main"
#endif

#include <weft/weft.hpp>
