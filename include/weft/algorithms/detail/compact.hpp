// Stable parallel compaction, shared by copy_if, remove, remove_if and unique: a first
// pass over the policy's chunks decides which elements stay and counts them per chunk;
// the caller turns the counts, in range order, into each chunk's output offset; a second
// pass, over the chunks recorded by the first (run_loop may cut [0, n) differently on
// another call), writes every chunk's elements at its offset.
#pragma once

#include <weft/algorithms/detail/loop.hpp>
#include <weft/algorithms/reduce.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace weft::detail::algo {

/// One chunk [begin, end) of a first pass and the number of its elements that stay.
/// `pending`: its last element stays too but is not counted yet (see compact_in_place).
struct kept_chunk {
    std::size_t begin;
    std::size_t end;
    std::size_t kept;
    bool pending;
};

/// The chunks a first pass ran, recorded as they finish (from any agent).
class chunk_log {
public:
    void add(const kept_chunk& c) {
        std::lock_guard lock(m_);
        chunks_.push_back(c);
    }
    /// The chunks in range order (call once the pass has joined).
    std::vector<kept_chunk>& sorted() {
        std::sort(chunks_.begin(), chunks_.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
        return chunks_;
    }
    const std::vector<kept_chunk>& chunks() const { return chunks_; }

private:
    std::mutex m_;
    std::vector<kept_chunk> chunks_;
};

/// Uninitialized storage for n elements; chunk [b, e) of the first pass constructs its
/// kept elements at [b, b + kept). Destroys what the recorded chunks constructed.
template <class T>
class kept_buffer {
public:
    explicit kept_buffer(std::size_t n) : data_(std::allocator<T>().allocate(n)), n_(n) {}
    kept_buffer(const kept_buffer&) = delete;
    kept_buffer& operator=(const kept_buffer&) = delete;
    ~kept_buffer() {
        for (const kept_chunk& c : log.chunks()) std::destroy_n(data_ + c.begin, c.kept);
        std::allocator<T>().deallocate(data_, n_);
    }
    T* data() const noexcept { return data_; }

    chunk_log log;

private:
    T* data_;
    std::size_t n_;
};

/// Moves the elements of [first, first + n) that stay to the front, in order; returns
/// the new end (`last` if every element stays).
///
/// keep(at, b, e, emit) handles chunk [b, e) (at(i): the i-th iterator): it calls
/// emit(it) on each element that stays, in order, and returns true if it left its last
/// element out of those but that element stays too. This lets unique compare element i
/// with element i - 1 across a chunk boundary: the chunk that owns element i - 1 must
/// not move it while the next chunk may read it, so it leaves it in place and the caller
/// moves it after the pass.
///
/// Why a buffer: in place, chunk c's output [offset_c, offset_c + kept_c) can overlap
/// elements an earlier chunk is still reading, so the first pass moves each chunk's
/// elements into its own stretch of a buffer and the second pass moves them to their
/// final places (the outputs are disjoint and nobody reads the range any more).
template <class P, class It, class Keep>
It compact_in_place(const P& p, It first, It last, std::size_t n, Keep& keep, const char* algorithm) {
    using T = std::iter_value_t<It>;
    if (n == 0) return first;
    const auto at = index_of<P>(first, n);
    kept_buffer<T> buf(n);
    run_loop(p, n, [&](std::size_t b, std::size_t e) {
        T* const out = buf.data() + b;
        std::size_t made = 0;
        auto emit = [&](const It& src) {
            std::construct_at(out + made, std::ranges::iter_move(src));
            ++made;
        };
        try {
            const bool pending = keep(at, b, e, emit);
            buf.log.add({b, e, made, pending});
        } catch (...) {
            std::destroy_n(out, made);  // not recorded: the buffer would not destroy them
            throw;
        }
    }, algorithm);
    std::vector<kept_chunk>& chunks = buf.log.sorted();
    if (std::any_of(chunks.begin(), chunks.end(), [](const kept_chunk& c) { return c.pending; })) {
        // The first pass has joined: every chunk's last element may move now. One move
        // per chunk, on the caller.
        call_element_function<P>(algorithm, [&] {
            for (kept_chunk& c : chunks) {
                if (!c.pending) continue;
                std::construct_at(buf.data() + c.begin + c.kept, std::ranges::iter_move(at(c.end - 1)));
                ++c.kept;
                c.pending = false;
            }
        });
    }
    std::vector<std::size_t> offsets(chunks.size());
    std::size_t total = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        offsets[c] = total;
        total += chunks[c].kept;
    }
    run_loop(p, chunks.size(), [&](std::size_t b, std::size_t e) {
        for (; b != e; ++b) {
            const kept_chunk& c = chunks[b];
            if (c.kept == 0) continue;  // (and offsets[b] may be n)
            T* const src = buf.data() + c.begin;
            std::move(src, src + c.kept, at(offsets[b]));
        }
    }, algorithm);
    return total == n ? last : at(total);
}

}  // namespace weft::detail::algo
