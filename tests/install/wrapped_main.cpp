// A consumer of the installed weft::main: an unchanged main runs as weft's first task.
#include <weft/main.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (weft::this_task::get_id() == weft::task_id{}) return 1;  // not a task
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], "--weft:", 7) == 0) return 2;  // a --weft: option left for main
    auto f = weft::async(weft::launch::fork, [] { return 6 * 7; });
    std::printf("installed weft::main works: %d\n", f.get());
}
