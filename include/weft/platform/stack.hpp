// Task stacks: anonymous mappings with a guard page below the usable area, so an
// overflow faults at once instead of silently corrupting a neighbour.
#pragma once

#include <cstddef>

namespace weft::detail {

/// Bytes of the inaccessible guard region below every task stack. It costs address
/// space, not memory (one mapping, never touched): a frame larger than a page that
/// steps over the bottom of a stack still faults inside it instead of writing into
/// whatever lies below (weft::weft also exports -fstack-clash-protection, so code built
/// against it probes large frames page by page and meets the guard's first page).
inline constexpr std::size_t stack_guard_size = 256 * 1024;

/// One task stack. Stacks grow down: usable memory is [bottom, top); the guard region
/// (stack_guard_size bytes) sits directly below `bottom`.
struct stack {
    void* mapping = nullptr;        ///< start of the mapping (the guard region)
    std::size_t mapping_size = 0;   ///< guard + usable, page multiple
    void* bottom = nullptr;         ///< lowest usable address
    std::size_t size = 0;           ///< usable bytes

    void* top() const noexcept { return static_cast<char*>(bottom) + size; }
    bool valid() const noexcept { return mapping != nullptr; }
    /// True if `addr` lies in the guard region or within `slack` bytes below it.
    bool guard_contains(const void* addr, std::size_t slack = 0) const noexcept;
};

/// The system page size.
std::size_t page_size() noexcept;

/// Rounds a requested usable stack size up to whole pages (at least 16 KiB).
std::size_t round_stack_size(std::size_t bytes) noexcept;

/// Maps a stack of `usable_bytes` (rounded to pages) plus its guard region.
/// Throws std::system_error with a message that names vm.max_map_count when the
/// kernel refuses more mappings.
stack allocate_stack(std::size_t usable_bytes);

/// Unmaps a stack made by allocate_stack; a default-constructed stack is ignored.
void deallocate_stack(stack& s) noexcept;

/// Gives the memory behind a stack's usable pages back to the system (madvise
/// MADV_DONTNEED) and keeps the mapping: its next use reads zero-filled pages, faulted in
/// as it touches them. For a stack not in use only.
void discard_stack_pages(const stack& s) noexcept;

}  // namespace weft::detail
