// weft on several localities (issue #23): the same program runs as one process, or as one
// locality per MPI rank under mpirun. Locality 0 cuts a sum into one piece per locality
// and sends each piece there as an action; each locality sums its piece with local tasks.
//
//   build/release/examples/weft_localities                       # one locality
//   mpirun -np 2 build/release/examples/weft_localities --weft:threads=1
//
// (as root, Open MPI also wants --allow-run-as-root; more ranks than cores, --oversubscribe)
#include <weft/distributed.hpp>
#include <weft/weft.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// Sums i*i over [begin, end) with a task per block, on the locality it is sent to.
std::uint64_t sum_of_squares(std::uint64_t begin, std::uint64_t end) {
    constexpr std::uint64_t block = 1 << 16;
    std::vector<weft::future<std::uint64_t>> parts;
    for (std::uint64_t b = begin; b < end; b += block) {
        parts.push_back(weft::async([b, e = std::min(end, b + block)] {
            std::uint64_t s = 0;
            for (std::uint64_t i = b; i < e; ++i) s += i * i;
            return s;
        }));
    }
    std::uint64_t total = 0;
    for (auto& p : parts) total += p.get();
    return total;
}
WEFT_PLAIN_ACTION(sum_of_squares, sum_of_squares_action);

// Where an action ran, to show it.
std::string hello() {
    return "locality " + std::to_string(weft::get_locality_id()) + " of " + std::to_string(weft::get_num_localities());
}
WEFT_PLAIN_ACTION(hello, hello_action);

int main(int argc, char** argv) {
    // fn runs on locality 0; the others serve actions until everything is done.
    return weft::run(argc, argv, [](int, char**) {
        const std::vector<weft::id_type> localities = weft::find_all_localities();
        for (const weft::id_type& where : localities)
            std::printf("hello from %s\n", weft::async(hello_action{}, where).get().c_str());

        const std::uint64_t n = 30'000'000;
        const std::uint64_t per = n / localities.size();
        std::vector<weft::future<std::uint64_t>> pieces;
        for (std::size_t k = 0; k < localities.size(); ++k) {
            const std::uint64_t begin = k * per, end = k + 1 == localities.size() ? n : begin + per;
            pieces.push_back(weft::async(sum_of_squares_action{}, localities[k], begin, end));
        }
        std::uint64_t total = 0;
        for (auto& p : pieces) total += p.get();
        // The same sum, serially.
        std::uint64_t expect = 0;
        for (std::uint64_t i = 0; i < n; ++i) expect += i * i;
        std::printf("sum of i*i for i < %llu over %zu localit%s: %llu (%s)\n", static_cast<unsigned long long>(n),
                    localities.size(), localities.size() == 1 ? "y" : "ies", static_cast<unsigned long long>(total),
                    total == expect ? "correct" : "WRONG");
        return total == expect ? 0 : 1;
    });
}
