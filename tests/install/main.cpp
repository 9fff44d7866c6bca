// Built against an installed weft by CI: proves the package config and headers work.
#include <weft/weft.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    return weft::run(argc, argv, [](int, char**) {
        weft::task_group g;
        int a = 0;
        g.run([&a] { a = weft::async([] { return 40; }).get(); });
        g.wait();
        const int r = a + 2;
        std::printf("installed weft works: %d\n", r);
        return r == 42 ? 0 : 1;
    });
}
