// Task stacks with guard pages (see include/weft/platform/stack.hpp).
#include <weft/config/config.hpp>
#include <weft/platform/stack.hpp>

#if WEFT_HAVE_ASAN
#include <sanitizer/asan_interface.h>
#endif
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <string>
#include <system_error>

namespace weft::detail {

std::size_t page_size() noexcept {
    static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return size;
}

std::size_t round_stack_size(std::size_t bytes) noexcept {
    constexpr std::size_t minimum = 16 * 1024;
    const std::size_t page = page_size();
    if (bytes < minimum) bytes = minimum;
    return (bytes + page - 1) / page * page;
}

bool stack::guard_contains(const void* addr, std::size_t slack) const noexcept {
    if (mapping == nullptr) return false;
    const auto a = reinterpret_cast<std::uintptr_t>(addr);
    const auto guard_hi = reinterpret_cast<std::uintptr_t>(bottom);
    const auto guard_lo = reinterpret_cast<std::uintptr_t>(mapping);
    return a < guard_hi && a + slack >= guard_lo;
}

namespace {
// Why the kernel refused a stack (ENOMEM), for the message: the mapping-count limit
// (vm.max_map_count) only when this process is near it; an address-space limit
// (ulimit -v) when one is set; otherwise plain memory exhaustion.
std::string enomem_hint(std::size_t mapping_bytes) {
    long limit = 0;
    {
        std::ifstream in("/proc/sys/vm/max_map_count");
        in >> limit;
    }
    long mappings = 0;
    {
        std::ifstream maps("/proc/self/maps");
        std::string line;
        while (std::getline(maps, line)) ++mappings;
    }
    if (limit > 0 && mappings + 16 >= limit) {
        return "this process has " + std::to_string(mappings) + " memory mappings and the kernel allows " +
               std::to_string(limit) + " (vm.max_map_count); each task stack needs two (stack and guard " +
               "region): raise it, e.g. 'sysctl -w vm.max_map_count=" + std::to_string(limit * 2) +
               "', or suspend fewer tasks at once";
    }
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        return "the address-space limit (ulimit -v) of " + std::to_string(as.rlim_cur / 1024) +
               " KiB is reached; each task stack reserves " + std::to_string(mapping_bytes / 1024) +
               " KiB of address space (its guard region costs no memory): raise the limit, lower "
               "--weft:stack-size, or suspend fewer tasks at once";
    }
    return "out of memory";
}
}  // namespace

stack allocate_stack(std::size_t usable_bytes) {
    const std::size_t page = page_size();
    stack s;
    s.size = round_stack_size(usable_bytes);
    const std::size_t guard = (stack_guard_size + page - 1) / page * page;
    s.mapping_size = s.size + guard;
    void* p = ::mmap(nullptr, s.mapping_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) {
        const int err = errno;
        throw std::system_error(err, std::generic_category(),
                                "weft: cannot map a task stack of " + std::to_string(s.size) +
                                    " bytes" + (err == ENOMEM ? " (" + enomem_hint(s.mapping_size) + ")" : ""));
    }
    if (::mprotect(p, guard, PROT_NONE) != 0) {
        const int err = errno;
        ::munmap(p, s.mapping_size);
        throw std::system_error(err, std::generic_category(),
                                "weft: cannot protect the guard region of a task stack" +
                                    (err == ENOMEM ? " (" + enomem_hint(s.mapping_size) + ")" : std::string{}));
    }
    s.mapping = p;
    s.bottom = static_cast<char*>(p) + guard;
    return s;
}

void deallocate_stack(stack& s) noexcept {
#if WEFT_HAVE_ASAN
    // Frames a task left on this stack keep their poison in ASan's shadow after munmap;
    // a later mmap at the same address (any allocator's) would then read as a stack
    // redzone. Memory goes back to the kernel clean.
    if (s.mapping != nullptr) ASAN_UNPOISON_MEMORY_REGION(s.mapping, s.mapping_size);
#endif
    if (s.mapping != nullptr) ::munmap(s.mapping, s.mapping_size);
    s = stack{};
}

void discard_stack_pages(const stack& s) noexcept {
    // Failure (EAGAIN under memory pressure, say) only leaves the pages where they are.
    if (s.mapping != nullptr) (void)::madvise(s.bottom, s.size, MADV_DONTNEED);
}

}  // namespace weft::detail
