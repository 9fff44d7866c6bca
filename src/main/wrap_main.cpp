// weft::main (include/weft/main.hpp): the program's main, run as weft's first task. The
// target links with -Wl,--wrap=main: the C runtime calls __wrap_main, and __real_main is
// the program's own main.
#include <weft/runtime/runtime.hpp>

extern "C" int __real_main(int argc, char** argv, char** envp);  // NOLINT: the linker's name

extern "C" int __wrap_main(int argc, char** argv, char** envp) {  // NOLINT: the linker's name
    // weft::run strips the --weft: options from argv before main sees them, and returns
    // main's result once main and every task it spawned have finished.
    return weft::run(argc, argv, [envp](int n, char** args) { return __real_main(n, args, envp); });
}
