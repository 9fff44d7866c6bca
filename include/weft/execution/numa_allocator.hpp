// numa_allocator: memory placed by first touch, on the NUMA domains whose executors will
// compute on it (seed 003 §6.1: "the allocator first-touches memory using the same
// executors, so every page is local to the threads that later use it").
#pragma once

#include <weft/config/errors.hpp>
#include <weft/execution/executor_traits.hpp>
#include <weft/execution/placed_executors.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace weft::execution {

/// A standard allocator whose memory is first touched by a set of executors, one per
/// part: an allocation of n elements is cut into executors().size() contiguous parts
/// (part d holds elements [d*n/D, (d+1)*n/D), page-aligned), and each page of part d is
/// first written by an agent of executor d. Linux then backs the page on the NUMA
/// domain of the worker that touched it. Compute on part d with the same executor
/// (`par.on(executors()[d])`, see part()) and every access is local.
///
/// The default executors are numa_executors(): one per NUMA domain holding a worker.
/// With one executor (one NUMA domain, like most laptops) it is a plain allocator: no
/// touch pass. Allocations of at least one page come straight from the kernel
/// (mmap), so their pages are untouched until the executors write them; smaller ones
/// from operator new. Construction needs a running runtime (the executors do).
///
/// Example:
/// ```
/// weft::execution::numa_allocator<double> alloc;               // one part per NUMA domain
/// std::vector<double, decltype(alloc)> a(n, 0.0, alloc);        // placed by the touch pass
/// for (std::size_t d = 0; d < alloc.parts(); ++d) {
///     auto [b, e] = alloc.part(d, n);
///     weft::for_each(weft::execution::par.on(alloc.executors()[d]), a.begin() + b, a.begin() + e, work);
/// }
/// ```
template <class T, executor Executor = numa_executor>
class numa_allocator {
public:
    using value_type = T;
    using executor_type = Executor;
    template <class U>
    struct rebind {
        using other = numa_allocator<U, Executor>;
    };

    /// One part per NUMA domain that holds a worker (numa_executors()).
    numa_allocator()
        requires std::is_same_v<Executor, numa_executor>
        : numa_allocator(numa_executors()) {}
    /// One part per executor, in order. @throws weft::error if `executors` is empty.
    explicit numa_allocator(std::vector<Executor> executors)
        : executors_(std::make_shared<const std::vector<Executor>>(checked(std::move(executors)))) {}
    template <class U>
    numa_allocator(const numa_allocator<U, Executor>& o) noexcept : executors_(o.executors_) {}

    /// The executors, one per part.
    const std::vector<Executor>& executors() const noexcept { return *executors_; }
    /// The number of parts an allocation is cut into.
    std::size_t parts() const noexcept { return executors_->size(); }
    /// The element range [first, last) of part d of an allocation of n elements (the
    /// range executor d touched; computing on it there is local). Part boundaries fall
    /// on page boundaries as far as the element size allows.
    std::pair<std::size_t, std::size_t> part(std::size_t d, std::size_t n) const noexcept {
        return {boundary(d, n), boundary(d + 1, n)};
    }

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < page_size()) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        if (parts() > 1) {
            try {
                touch(static_cast<unsigned char*>(p), n);
            } catch (...) {
                ::munmap(p, bytes);
                throw;
            }
        }
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < page_size()) ::operator delete(p, std::align_val_t{alignof(T)});
        else ::munmap(p, bytes);
    }

    template <class U>
    bool operator==(const numa_allocator<U, Executor>& o) const noexcept {
        return executors_ == o.executors_ || *executors_ == *o.executors_;
    }

private:
    template <class, executor>
    friend class numa_allocator;

    static std::size_t page_size() noexcept {
        static const std::size_t size = [] {
            const long s = ::sysconf(_SC_PAGESIZE);
            return s > 0 ? static_cast<std::size_t>(s) : std::size_t{4096};
        }();
        return size;
    }
    static std::vector<Executor> checked(std::vector<Executor> e) {
        if (e.empty()) throw weft::error("weft::execution::numa_allocator: no executors to place memory with");
        return e;
    }
    /// First element of part d: d*n/D, rounded down to the first element that starts a
    /// page (when elements are smaller than a page), so that no page is split between
    /// two parts.
    std::size_t boundary(std::size_t d, std::size_t n) const noexcept {
        const std::size_t D = parts();
        if (d >= D) return n;
        const std::size_t raw = n / D * d + n % D * d / D;  // d*n/D without overflow
        const std::size_t per_page = page_size() / sizeof(T);
        if (per_page <= 1 || page_size() % sizeof(T) != 0) return raw;
        return raw / per_page * per_page;
    }
    /// Writes one byte of every page of part d with an agent of executor d; each agent
    /// of a bulk call takes a contiguous run of the part's pages, so a placed executor's
    /// worker j touches the pages its block of a static loop will later compute on.
    void touch(unsigned char* base, std::size_t n) const {
        const std::size_t page = page_size();
        for (std::size_t d = 0; d < parts(); ++d) {
            const auto [b, e] = part(d, n);
            if (b == e) continue;
            unsigned char* first = base + b * sizeof(T);
            unsigned char* last = base + e * sizeof(T);
            // Pages that start inside the part (the first may be shared with part d-1
            // when elements do not tile pages; it then belongs to d-1).
            auto* p0 = reinterpret_cast<unsigned char*>(
                (reinterpret_cast<std::uintptr_t>(first) + page - 1) / page * page);
            if (d == 0) p0 = first;
            if (p0 >= last) continue;
            const std::size_t pages = (static_cast<std::size_t>(last - p0) + page - 1) / page;
            const Executor& ex = (*executors_)[d];
            const std::size_t agents = std::min<std::size_t>(execution::processing_units_count(ex), pages);
            execution::bulk_sync_execute(
                ex,
                [=](std::size_t a) {
                    for (std::size_t i = a * pages / agents, end = (a + 1) * pages / agents; i < end; ++i)
                        *static_cast<volatile unsigned char*>(p0 + i * page) = 0;
                },
                agents);
        }
    }

    std::shared_ptr<const std::vector<Executor>> executors_;
};

}  // namespace weft::execution
