// Alignment in the shape of the Barcelona OpenMP Tasks Suite's alignment (Duran et al.
// 2009; from the Application Kernel Matrix by Cray, itself from ClustalW's pairwise
// stage): the score of every pair of a set of protein sequences, one task per pair.
// Shared by bench/alignment/{serial,weft,tbb,omp}.cpp and by bench/inncabs/alignment.cpp
// (INNCABS's port of the same program): the sequences and their generator, the scores,
// the pair kernel, the options and the result line.
//
// A pair (ClustalW's pairalign): a local alignment with affine gaps (a gap of k residues
// costs g + k gh) under the Gonnet 250 matrix (times 10): a forward pass finds the best
// local score and where it ends, a reverse pass from that end finds where it starts, and
// Myers and Miller's linear-space divide and conquer (diff) recovers the alignment of that
// stretch as a script of matches, insertions and deletions. The pair's result is the
// percentage of identities along it over the shorter sequence's length, truncated to an
// integer. g = 2 * mat_avscore * (10 + ln(min(n, m))) with mat_avscore minus the
// matrix's mean off-diagonal score (ClustalW's protein defaults: gap open 10, gap extend
// 0.1, gh = 10). As in BOTS, every pass keeps its rows in arrays of max_aln_length ints
// on the stack (diff: four per level of its recursion, 80 KB each), so that a task needs
// ~1.1 MB of stack for the longest sequences allowed (max_aln_length - 1).
//
// The sequences: BOTS and INNCABS read prot.100.aa, 100 mouse and human proteins of
// ~30 to ~2,000 residues (~650 on average). Here a deterministic generator makes --nseqs
// of them (default 100): lengths log-uniform in [100, 2000] (mean ~630), residues drawn
// with the amino-acid frequencies of UniProtKB/Swiss-Prot; every odd-numbered sequence is
// a homologue of the one before it (15 % substitutions, 2 % insertions, 2 % deletions), as
// the file holds orthologues, so that some alignments are long. A splitmix64 stream
// seeded with 2009 drives it.
//
// The check: every process first scores every pair serially (untimed) and checks each
// alignment against itself: the score Myers-Miller's diff returns must equal the forward
// pass's best score (both are the optimum of the local alignment, found two ways), and
// the script it wrote must cover exactly the stretch of both sequences the two passes
// delimited. (The script is not rescored: as with ClustalW's and BOTS's diff, which this
// follows step by step, where an insertion meets a deletion the script can differ from
// the path whose score diff returns: 2 of the default input's 4,950 pairs.)
// Every timed run must then give every pair the serial result.
//
// Options: --nseqs=N (sequences, 2..1000, default 100: ~8 s serially here), --workers=N,
// --reps=N; --weft:* is left to the weft runtime. BOTS's alignment has no cut-off.
//
// Result line: bench_common.hpp's format with problem=alignment, n=<sequences>,
// calls=<pairs> (one task each), result=<sum of the pairs' scores>, then residues=<total
// length>.
#pragma once

#include "common/bench_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace weft::bench::alignment {

/// The longest alignment a pass can hold: the size of the stack arrays (BOTS's
/// MAX_ALN_LENGTH); a sequence may have at most max_aln_length - 1 residues.
inline constexpr int max_aln_length = 5000;
/// Stack a pair task needs at most: 14 levels of diff (a sequence of 4,999 residues is
/// halved 13 times) at 4 arrays of max_aln_length ints, the script (2 max_aln_length + 1
/// ints) and a margin. What the weft versions ask for their tasks.
inline constexpr std::size_t task_stack_bytes = std::size_t{2} << 20;

/// Residue codes: the index of a letter in `codes` is its code (BOTS's
/// amino_acid_codes); 30 and 31 are the two gap codes.
inline constexpr const char* codes = "ABCDEFGHIKLMNPQRSTUVWXYZ-";
inline constexpr int numres = 32;
inline constexpr int gap_pos1 = numres - 2;
inline constexpr int gap_pos2 = numres - 1;

/// The substitution scores (code x code) and ClustalW's mat_avscore.
struct scoring {
    int matrix[numres][numres] = {};
    int mat_avscore = 0;
};

/// The Gonnet 250 matrix (Gonnet, Cohen and Benner 1992, as ClustalW's gon250mt): lower
/// triangle, rows and columns in the order ABCDEFGHIKLMNPQRSTVWXYZ.
inline constexpr const char* gonnet_order = "ABCDEFGHIKLMNPQRSTVWXYZ";
inline constexpr int gonnet250[] = {
    24,                                                                                                //
    0,   0,                                                                                            //
    5,   0, 115,                                                                                       //
    -3,  0, -32, 47,                                                                                   //
    0,   0, -30, 27,  36,                                                                              //
    -23, 0, -8,  -45, -39, 70,                                                                         //
    5,   0, -20, 1,   -8,  -52, 66,                                                                    //
    -8,  0, -13, 4,   4,   -1,  -14, 60,                                                               //
    -8,  0, -11, -38, -27, 10,  -45, -22, 40,                                                          //
    -4,  0, -28, 5,   12,  -33, -11, 6,   -21, 32,                                                     //
    -12, 0, -15, -40, -28, 20,  -44, -19, 28,  -21, 40,                                                //
    -7,  0, -9,  -30, -20, 16,  -35, -13, 25,  -14, 28,  43,                                           //
    -3,  0, -18, 22,  9,   -31, 4,   12,  -28, 8,   -30, -22, 38,                                      //
    3,   0, -31, -7,  -5,  -38, -16, -11, -26, -6,  -23, -24, -9,  76,                                 //
    -2,  0, -24, 9,   17,  -26, -10, 12,  -19, 15,  -16, -10, 7,   -2,  27,                            //
    -6,  0, -22, -3,  4,   -32, -10, 6,   -24, 27,  -22, -17, 3,   -9,  15,  47,                       //
    11,  0, 1,   5,   2,   -28, 4,   -2,  -18, 1,   -21, -14, 9,   4,   2,   -2,  22,                  //
    6,   0, -5,  0,   -1,  -22, -11, -3,  -6,  1,   -13, -6,  5,   1,   0,   -2,  15,  25,             //
    1,   0, 0,   -29, -19, 1,   -33, -20, 31,  -17, 18,  16,  -22, -18, -15, -20, -10, 0,   34,        //
    -36, 0, -10, -52, -43, 36,  -40, -8,  -18, -35, -7,  -10, -36, -50, -27, -16, -33, -35, -26, 142,  //
    0,   0, 0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    -22, 0, -5,  -28, -27, 51,  -40, 22,  -7,  -21, 0,   -2,  -14, -31, -17, -18, -19, -19, -11, 41,  0, 78,
    0,   0, 0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0, 0, 0};

/// The code of residue letter c, or -1.
constexpr int code_of(char c) noexcept {
    for (int i = 0; codes[i] != '\0'; ++i) {
        if (codes[i] == c) return i;
    }
    return -1;
}

/// ClustalW's get_matrix(gon250mt, scale 10): the matrix in codes, gap scores 0, and
/// mat_avscore = minus the mean score of two different residues (over the codes
/// A..Z, as ClustalW counts them).
inline scoring make_scoring() noexcept {
    scoring s;
    int at = 0;
    for (int i = 0; gonnet_order[i] != '\0'; ++i) {
        const int ti = code_of(gonnet_order[i]);
        for (int j = 0; j <= i; ++j) {
            const int tj = code_of(gonnet_order[j]);
            s.matrix[ti][tj] = s.matrix[tj][ti] = gonnet250[at++] * 10;
        }
    }
    const int max_aa = code_of('Z');
    const int residues = static_cast<int>(std::char_traits<char>::length(gonnet_order)) - 1;
    int off_diagonal = 0;
    for (int i = 0; i <= max_aa; ++i) {
        for (int j = 0; j < i; ++j) off_diagonal += s.matrix[i][j];
    }
    s.mat_avscore = -(off_diagonal / ((residues * residues - residues) / 2));
    return s;
}

/// A set of sequences of codes, each 1-based (element 0 unused), as ClustalW keeps them.
struct sequence_set {
    std::vector<std::vector<std::int8_t>> seq;

    int count() const noexcept { return static_cast<int>(seq.size()); }
    int length(int i) const noexcept { return static_cast<int>(seq[static_cast<std::size_t>(i)].size()) - 1; }
    const std::int8_t* data(int i) const noexcept { return seq[static_cast<std::size_t>(i)].data(); }
    /// Residues that are not gaps (ClustalW's len1, len2).
    int residues(int i) const noexcept {
        return static_cast<int>(std::count_if(seq[static_cast<std::size_t>(i)].begin() + 1,
                                              seq[static_cast<std::size_t>(i)].end(),
                                              [](std::int8_t c) { return c != gap_pos1 && c != gap_pos2; }));
    }
};

namespace detail {

struct splitmix64 {
    std::uint64_t state;
    std::uint64_t next() noexcept {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [0, n).
    int below(int n) noexcept { return static_cast<int>(unit() * n); }
};

/// A residue drawn with UniProtKB/Swiss-Prot's amino-acid frequencies (in 0.01 %).
inline std::int8_t random_residue(splitmix64& rng) noexcept {
    static constexpr char letters[] = "ARNDCQEGHILKMFPSTWYV";
    static constexpr int weights[] = {825, 553, 406, 545, 137, 393, 675, 707, 227, 596,
                                      966, 584, 242, 386, 470, 656, 534, 108, 292, 687};
    int total = 0;
    for (int w : weights) total += w;
    int x = rng.below(total);
    int i = 0;
    while (x >= weights[i]) x -= weights[i++];
    return static_cast<std::int8_t>(code_of(letters[i]));
}

}  // namespace detail

/// The generated protein set (see the file comment).
inline sequence_set generate(int nseqs) {
    detail::splitmix64 rng{2009};
    sequence_set s;
    s.seq.resize(static_cast<std::size_t>(nseqs));
    for (int i = 0; i < nseqs; ++i) {
        std::vector<std::int8_t>& out = s.seq[static_cast<std::size_t>(i)];
        out.push_back(0);
        if (i % 2 == 1) {
            // A homologue of sequence i - 1.
            const std::vector<std::int8_t>& parent = s.seq[static_cast<std::size_t>(i - 1)];
            for (std::size_t k = 1; k < parent.size(); ++k) {
                const double u = rng.unit();
                if (u < 0.02) continue;                                    // deletion
                if (u < 0.04) out.push_back(detail::random_residue(rng));  // insertion
                out.push_back(u < 0.19 ? detail::random_residue(rng) : parent[k]);
            }
        } else {
            const int length = static_cast<int>(std::lround(100.0 * std::pow(20.0, rng.unit())));
            for (int k = 0; k < length; ++k) out.push_back(detail::random_residue(rng));
        }
        if (out.size() > static_cast<std::size_t>(max_aln_length)) out.resize(static_cast<std::size_t>(max_aln_length));
    }
    return s;
}

/// The alignment script Myers-Miller writes (ClustalW's displ, print_ptr, last_print):
/// 0 = a pair of residues, k > 0 = k residues of the second sequence against gaps, k < 0
/// = -k residues of the first against gaps. Entries from 1 to print_ptr - 1.
struct script {
    int* displ;
    int print_ptr = 1;
    int last_print = 0;

    void del(int k) noexcept {
        if (last_print < 0) {
            displ[print_ptr - 1] -= k;
            last_print = displ[print_ptr - 1];
        } else {
            displ[print_ptr++] = -k;
            last_print = -k;
        }
    }
    void add(int v) noexcept {
        if (last_print < 0) {
            displ[print_ptr - 1] = v;
            displ[print_ptr++] = last_print;
        } else {
            displ[print_ptr++] = v;
            last_print = v;
        }
    }
    void match() noexcept {
        displ[print_ptr++] = 0;
        last_print = 0;
    }
};

/// What one pair's alignment found, for the serial check.
struct pair_detail {
    int maxscore = 0;     ///< the forward pass's best local score
    int diff_score = 0;   ///< the score Myers-Miller's diff returned
    bool spans = false;   ///< whether its script covers the stretch the passes found
};

/// The two sequences of a pair and the pair's gap penalties.
struct pair_problem {
    const scoring* sc;
    const std::int8_t* a;  ///< 1-based
    const std::int8_t* b;  ///< 1-based
    int g;                 ///< gap opening
    int gh;                ///< gap extension, per residue

    int score(int i, int j) const noexcept { return sc->matrix[a[i]][b[j]]; }
    int tbgap(int k, int tb) const noexcept { return k <= 0 ? 0 : tb + gh * k; }
};

/// The best local score of a[1..n] against b[1..m] and where it ends (ClustalW
/// forward_pass; Smith-Waterman with Gotoh's affine gaps in two rows).
[[gnu::noinline]] inline void forward_pass(const pair_problem& pp, int n, int m, int& se1, int& se2, int& maxscore) {
    int HH[max_aln_length];
    int DD[max_aln_length];
    const int g = pp.g, gh = pp.gh;
    maxscore = 0;
    se1 = se2 = 0;
    for (int j = 0; j <= m; ++j) {
        HH[j] = 0;
        DD[j] = -g;
    }
    for (int i = 1; i <= n; ++i) {
        int hh = 0, p = 0, f = -g;
        for (int j = 1; j <= m; ++j) {
            f = std::max(f - gh, hh - g - gh);
            DD[j] = std::max(DD[j] - gh, HH[j] - g - gh);
            hh = std::max({p + pp.score(i, j), f, DD[j], 0});
            p = HH[j];
            HH[j] = hh;
            if (hh > maxscore) {
                maxscore = hh;
                se1 = i;
                se2 = j;
            }
        }
    }
}

/// Where the best local alignment ending at (se1, se2) starts: the first cell, scanning
/// backwards, whose alignment to (se1, se2) scores maxscore (ClustalW reverse_pass).
[[gnu::noinline]] inline void reverse_pass(const pair_problem& pp, int se1, int se2, int maxscore, int& sb1, int& sb2) {
    int HH[max_aln_length];
    int DD[max_aln_length];
    const int g = pp.g, gh = pp.gh;
    int cost = 0;
    sb1 = sb2 = 1;
    for (int j = se2; j > 0; --j) HH[j] = DD[j] = -1;
    for (int i = se1; i > 0; --i) {
        int hh = -1, f = -1;
        int p = i == se1 ? 0 : -1;
        for (int j = se2; j > 0; --j) {
            f = std::max(f - gh, hh - g - gh);
            DD[j] = std::max(DD[j] - gh, HH[j] - g - gh);
            hh = std::max({p + pp.score(i, j), f, DD[j]});
            p = HH[j];
            HH[j] = hh;
            if (hh > cost) {
                cost = hh;
                sb1 = i;
                sb2 = j;
                if (cost >= maxscore) break;
            }
        }
        if (cost >= maxscore) break;
    }
}

/// Myers and Miller's optimal global alignment of a[A+1..A+M] against b[B+1..B+N] in
/// linear space (ClustalW diff): the best score with gaps opened at cost tb before the
/// start and te after the end; writes the alignment to `out`. Recursive, on four stack
/// arrays per level.
[[gnu::noinline]] inline int diff(const pair_problem& pp, int A, int B, int M, int N, int tb, int te, script& out) {
    const int g = pp.g, gh = pp.gh;
    if (N <= 0) {
        if (M > 0) out.del(M);
        return -pp.tbgap(M, tb);
    }
    if (M <= 1) {
        if (M <= 0) {
            out.add(N);
            return -pp.tbgap(N, tb);
        }
        // One residue of a against N of b: against a gap, or against one of them.
        int midh = -(tb + gh) - pp.tbgap(N, te);
        const int hh0 = -(te + gh) - pp.tbgap(N, tb);
        if (hh0 > midh) midh = hh0;
        int midj = 0;
        for (int j = 1; j <= N; ++j) {
            const int hh = pp.score(A + 1, B + j) - pp.tbgap(N - j, te) - pp.tbgap(j - 1, tb);
            if (hh > midh) {
                midh = hh;
                midj = j;
            }
        }
        if (midj == 0) {
            out.del(1);
            out.add(N);
        } else {
            if (midj > 1) out.add(midj - 1);
            out.match();
            if (midj < N) out.add(N - midj);
        }
        return midh;
    }

    int HH[max_aln_length];
    int DD[max_aln_length];
    int RR[max_aln_length];
    int SS[max_aln_length];

    // Forward scores of the top half, rows 1..midi.
    const int midi = M / 2;
    HH[0] = 0;
    int t = -tb;
    for (int j = 1; j <= N; ++j) {
        t -= gh;
        HH[j] = t;
        DD[j] = t - g;
    }
    t = -tb;
    for (int i = 1; i <= midi; ++i) {
        int s = HH[0];
        t -= gh;
        int hh = t;
        HH[0] = t;
        int f = t - g;
        for (int j = 1; j <= N; ++j) {
            f = std::max(f - gh, hh - g - gh);
            const int e = std::max(DD[j] - gh, HH[j] - g - gh);
            hh = std::max({s + pp.score(A + i, B + j), f, e});
            s = HH[j];
            HH[j] = hh;
            DD[j] = e;
        }
    }
    DD[0] = HH[0];

    // Backward scores of the bottom half, rows M-1 down to midi.
    RR[N] = 0;
    t = -te;
    for (int j = N - 1; j >= 0; --j) {
        t -= gh;
        RR[j] = t;
        SS[j] = t - g;
    }
    t = -te;
    for (int i = M - 1; i >= midi; --i) {
        int s = RR[N];
        t -= gh;
        int hh = t;
        RR[N] = hh;
        int f = t - g;
        for (int j = N - 1; j >= 0; --j) {
            f = std::max(f - gh, hh - g - gh);
            const int e = std::max(SS[j] - gh, RR[j] - g - gh);
            hh = std::max({s + pp.score(A + i + 1, B + j + 1), f, e});
            s = RR[j];
            RR[j] = hh;
            SS[j] = e;
        }
    }
    SS[N] = RR[N];

    // Where the optimal path crosses row midi: at a cell (type 1) or inside a vertical
    // gap that spans it (type 2, whose opening both halves charged).
    int midh = HH[0] + RR[0];
    int midj = 0;
    int type = 1;
    for (int j = 0; j <= N; ++j) {
        const int hh = HH[j] + RR[j];
        if (hh > midh || (hh == midh && HH[j] != DD[j] && RR[j] == SS[j])) {
            midh = hh;
            midj = j;
        }
    }
    for (int j = N; j >= 0; --j) {
        const int hh = DD[j] + SS[j] + g;
        if (hh > midh) {
            midh = hh;
            midj = j;
            type = 2;
        }
    }

    if (type == 1) {
        diff(pp, A, B, midi, midj, tb, g, out);
        diff(pp, A + midi, B + midj, M - midi, N - midj, g, te, out);
    } else {
        diff(pp, A, B, midi - 1, midj, tb, 0, out);
        out.del(2);
        diff(pp, A + midi + 1, B + midj, M - midi - 1, N - midj, 0, te, out);
    }
    return midh;
}

/// The identities along the script, from (tsb1, tsb2) (ClustalW tracepath).
inline int identities(const pair_problem& pp, const script& s, int tsb1, int tsb2) noexcept {
    int i1 = tsb1, i2 = tsb2, count = 0;
    for (int i = 1; i < s.print_ptr; ++i) {
        const int k = s.displ[i];
        if (k == 0) {
            const int c1 = pp.a[i1], c2 = pp.b[i2];
            if (c1 != gap_pos1 && c1 != gap_pos2 && c1 == c2) ++count;
            ++i1;
            ++i2;
        } else if (k > 0) {
            i2 += k;
        } else {
            i1 -= k;
        }
    }
    return count;
}

/// Whether the script covers exactly M residues of the first sequence and N of the
/// second.
inline bool script_spans(const script& s, int M, int N) noexcept {
    int a = 0, b = 0;
    for (int i = 1; i < s.print_ptr; ++i) {
        const int k = s.displ[i];
        if (k >= 0) b += k == 0 ? 1 : k;
        if (k <= 0) a += k == 0 ? 1 : -k;
    }
    return a == M && b == N;
}

/// One pair's result: the percentage of identities along the best local alignment of
/// sequences si and sj over the shorter one's residues, truncated (BOTS's pairalign body).
/// Keeps, as BOTS does, its script on the stack.
inline int align_pair(const scoring& sc, const sequence_set& s, int si, int sj, pair_detail* detail = nullptr) {
    const int n = s.length(si), m = s.length(sj);
    if (n == 0 || m == 0) return 1;
    const int len1 = s.residues(si), len2 = s.residues(sj);
    // ClustalW's protein gap penalties: open 10 (scaled by the matrix and the length),
    // extend 0.1, both times 100.
    const double gg = 10.0 + std::log(static_cast<double>(std::min(n, m)));
    const int g = static_cast<int>(sc.mat_avscore <= 0 ? 2 * 100 * gg : 2 * sc.mat_avscore * gg);
    const int gh = static_cast<int>(100 * 0.1);
    const pair_problem pp{&sc, s.data(si), s.data(sj), g, gh};

    int se1, se2, maxscore, sb1, sb2;
    forward_pass(pp, n, m, se1, se2, maxscore);
    reverse_pass(pp, se1, se2, maxscore, sb1, sb2);

    int displ[2 * max_aln_length + 1];
    script out{displ};
    const int score = diff(pp, sb1 - 1, sb2 - 1, se1 - sb1 + 1, se2 - sb2 + 1, 0, 0, out);
    const double count = identities(pp, out, sb1, sb2);
    if (detail != nullptr) {
        detail->maxscore = maxscore;
        detail->diff_score = score;
        detail->spans = script_spans(out, se1 - sb1 + 1, se2 - sb2 + 1);
    }
    if (len1 == 0 || len2 == 0) return 0;
    return static_cast<int>(100.0 * count / static_cast<double>(std::min(len1, len2)));
}

/// Pairs (si < sj): one task each.
inline std::uint64_t pair_count(int nseqs) noexcept {
    return static_cast<std::uint64_t>(nseqs) * static_cast<std::uint64_t>(nseqs - 1) / 2;
}

/// The results of every pair, serially, row-major in an nseqs x nseqs array (zeros
/// below the diagonal); checks every alignment against itself (see the file comment)
/// and exits 1, naming the pair, if one fails.
inline std::vector<int> align_all_checked(const scoring& sc, const sequence_set& s, const char* program) {
    const int n = s.count();
    std::vector<int> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    for (int si = 0; si < n; ++si) {
        for (int sj = si + 1; sj < n; ++sj) {
            pair_detail d;
            out[static_cast<std::size_t>(si * n + sj)] = align_pair(sc, s, si, sj, &d);
            if (s.length(si) == 0 || s.length(sj) == 0) continue;
            if (d.diff_score != d.maxscore || !d.spans) {
                std::fprintf(stderr,
                             "%s: the serial alignment of sequences %d and %d fails its check: best local score %d, "
                             "Myers-Miller's %d, its script %s the stretch\n",
                             program, si + 1, sj + 1, d.maxscore, d.diff_score, d.spans ? "spans" : "does not span");
                std::exit(1);
            }
        }
    }
    return out;
}

/// The sum of every pair's result: the result= value.
inline std::uint64_t checksum(const std::vector<int>& results) noexcept {
    std::uint64_t sum = 0;
    for (int r : results) sum += static_cast<std::uint64_t>(r);
    return sum;
}

struct options {
    int nseqs = 100;
    unsigned workers = 0;
    unsigned reps = 3;
};

[[noreturn]] inline void usage(const char* program, int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: %s [--nseqs=N] [--workers=N] [--reps=N] [--weft:...]\n"
                 "  --nseqs=N    generated protein sequences, 2..1000 (default 100, as prot.100.aa)\n"
                 "  --workers=N  worker threads (default: hardware concurrency)\n"
                 "  --reps=N     measured repetitions after one warm-up (default 3)\n"
                 "  --weft:*     runtime options, ignored by the anchors\n",
                 program);
    std::exit(status);
}

inline options parse_options(int argc, char** argv) {
    options o;
    parse_command_line(argc, argv, usage, [&](std::string_view name, std::string_view v) {
        using weft::bench::detail::parse_number;
        if (name == "--nseqs") return parse_number(v, o.nseqs) && o.nseqs >= 2 && o.nseqs <= 1000;
        return parse_run_option(name, v, o.workers, o.reps);
    });
    o.workers = default_workers(o.workers);
    return o;
}

/// Scores every pair serially and checks it (untimed), then one warm-up run and o.reps
/// timed ones of `run(results)`, which must fill the nseqs x nseqs array (above the
/// diagonal) as align_pair does; each is compared with the serial results and reported.
template <class Run>
void measure(const char* impl, unsigned workers, const options& o, Run run) {
    const scoring sc = make_scoring();
    const sequence_set s = generate(o.nseqs);
    const std::vector<int> expected = align_all_checked(sc, s, impl);
    const std::uint64_t pairs = pair_count(o.nseqs);
    std::uint64_t residues = 0;
    for (int i = 0; i < s.count(); ++i) residues += static_cast<std::uint64_t>(s.length(i));
    for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0: the warm-up
        std::vector<int> results(expected.size(), 0);
        const double seconds = time_seconds([&] { run(sc, s, results); });
        if (results != expected) fail_check("alignment", impl, checksum(results), checksum(expected));
        if (rep == 0) continue;
        std::printf("weft-bench problem=alignment impl=%s workers=%u n=%d calls=%llu seconds=%.6f ns_per_call=%.3f "
                    "result=%llu residues=%llu\n",
                    impl, workers, o.nseqs, static_cast<unsigned long long>(pairs), seconds,
                    seconds * 1e9 / static_cast<double>(pairs), static_cast<unsigned long long>(checksum(results)),
                    static_cast<unsigned long long>(residues));
        std::fflush(stdout);
    }
}

}  // namespace weft::bench::alignment
