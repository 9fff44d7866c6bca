#!/usr/bin/python3
"""Tables, correlations and the plot of the grain-size study (seed 000 ch.5; digest §2, §4.1).

    analyze.py [--out DIR] [--meta FILE] CSV [CSV ...]

Reads the CSV lines of bench_grain_size (one file per worker count; the 1-worker run is
needed: it gives t_d1) and writes to DIR (default: the first CSV's directory):
  summary.md        per worker count, a table per partition size of every metric; the
                    correlation table in the layout of the seed's Table 2, with the seed's
                    Haswell 4-core rows beside ours; the figure
  summary.csv       the per-size table, machine-readable
  correlations.csv  the correlation table, machine-readable
  grain_size.png, grain_size.svg
                    execution time against partition size (the U-curve) over the counters

The numbers need the standard library only; the plot needs matplotlib (Debian:
apt-get install python3-matplotlib, seen by /usr/bin/python3). Without it the tables are
still written.

Statistics as in the seed (digest §2, "Statistics used", Ch.5): mean execution time with
a 90 % confidence interval (Student t), harmonic mean of the idle-rate, other metrics from
the mean counts, and Pearson correlations per granularity range over every repetition.
"""

import argparse
import csv
import math
import os
import sys

COLUMNS = ["workers", "np", "partitions", "rep", "seconds", "idle_rate", "task_duration_ns",
           "task_overhead_ns", "tasks", "phases", "func_ns", "exec_ns",
           "mgmt_overhead_per_core_ns", "pending_accesses", "pending_misses"]

# --- granularity ranges -------------------------------------------------------------------
# The seed's stencil ranges on Haswell, by 1-core task duration in µs (digest §2, Table 2
# footer). The seed leaves gaps between them (26-29, 101-125, ...) because it only measured
# divisors of 10^8; we cut each gap at its geometric midpoint, since grain sizes are swept
# on a log scale. Coarse/Very Coarse is cut at 1 ms, the seed's own label ("Very Coarse
# > 1 ms"; "<27 µs and >1 ms", L962). Below the seed's finest grain (3 µs) our cheaper
# tasks get a class of their own.
SEED_RANGES = [  # name, short name, seed's grain range (µs), seed's points per partition
    ("Very Fine", "VF", 3, 26, "160 to 15625"),
    ("Fine", "F", 29, 101, "16000 to 80000"),
    ("Lower Medium", "LM", 125, 194, "100000 to 160000"),
    ("Upper Medium", "UM", 241, 481, "200000 to 400000"),
    ("Coarse", "C", 601, 998, "500000 to 800000"),
    ("Very Coarse", "VC", 1283, 33072, "> 800000"),
]


def make_ranges():
    """[(name, short, lower µs, upper µs)], contiguous from 0 to infinity."""
    cuts = []
    for (_, _, _, hi, _), (name, _, lo, _, _) in zip(SEED_RANGES, SEED_RANGES[1:]):
        cuts.append(1000.0 if name == "Very Coarse" else math.sqrt(hi * lo))
    ranges = [("Sub-fine", "SF", 0.0, float(SEED_RANGES[0][2]))]
    lower = float(SEED_RANGES[0][2])
    for (name, short, _, _, _), upper in zip(SEED_RANGES, cuts + [math.inf]):
        ranges.append((name, short, lower, upper))
        lower = upper
    return ranges


RANGES = make_ranges()
RANGE_NAMES = [r[0] for r in RANGES]


def classify(td1_ns):
    if not math.isfinite(td1_ns):
        return "unclassified"
    us = td1_ns / 1000.0
    for name, _, lo, hi in RANGES:
        if lo <= us < hi:
            return name
    return "unclassified"


# The seed's Table 2, Haswell, 4 cores (digest §4.1): TM, WT, WT+TM, idle-rate, P-Access.
SEED_HASWELL_4 = {
    "Very Fine": (0.999728, 0.869302, 0.999146, 0.766364, 0.997811),
    "Fine": (0.830655, 0.519580, 0.735368, 0.455680, 0.577314),
    "Lower Medium": (0.841350, 0.830339, 0.976786, 0.742679, -0.072411),
    "Upper Medium": (0.911439, 0.957041, 0.988756, 0.852246, -0.563450),
    "Coarse": (0.929920, 0.659185, 0.839686, 0.890149, -0.453998),
    "Very Coarse": (0.997503, -0.811933, 0.942513, 0.934292, 0.989301),
}
METRICS = ["TM", "WT", "WT+TM", "Idle-rate", "P-Access"]

# --- statistics ---------------------------------------------------------------------------


def mean(xs):
    xs = [x for x in xs if math.isfinite(x)]
    return sum(xs) / len(xs) if xs else math.nan


def stdev(xs):
    xs = [x for x in xs if math.isfinite(x)]
    if len(xs) < 2:
        return math.nan
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def harmonic_mean(xs):
    """The seed's average for idle-rate (a ratio); 0 if any sample is 0."""
    xs = [x for x in xs if math.isfinite(x)]
    if not xs:
        return math.nan
    if any(x <= 0 for x in xs):
        return 0.0
    return len(xs) / sum(1.0 / x for x in xs)


def student_t_quantile(p, df):
    """t with P(T <= t) = p for Student's t with df degrees of freedom (p > 0.5): bisection
    on the CDF, integrated with Simpson's rule; ample for a confidence interval."""
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def density(x):
        return math.exp(log_norm - (df + 1) / 2 * math.log1p(x * x / df))

    def cdf(t, steps=2000):
        h = t / steps
        s = density(0.0) + density(t)
        s += 4 * sum(density((2 * i - 1) * h) for i in range(1, steps // 2 + 1))
        s += 2 * sum(density(2 * i * h) for i in range(1, steps // 2))
        return 0.5 + s * h / 3

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


_T90 = {}


def ci90(xs):
    """Half-width of the two-sided 90 % confidence interval of the mean."""
    xs = [x for x in xs if math.isfinite(x)]
    n = len(xs)
    if n < 2:
        return math.nan
    if n - 1 not in _T90:
        _T90[n - 1] = student_t_quantile(0.95, n - 1)
    return _T90[n - 1] * stdev(xs) / math.sqrt(n)


def pearson(xs, ys):
    pairs = [(x, y) for x, y in zip(xs, ys) if math.isfinite(x) and math.isfinite(y)]
    if len(pairs) < 3:
        return math.nan
    mx = sum(p[0] for p in pairs) / len(pairs)
    my = sum(p[1] for p in pairs) / len(pairs)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    syy = sum((y - my) ** 2 for _, y in pairs)
    if sxx <= 0 or syy <= 0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


# --- input --------------------------------------------------------------------------------


def read_samples(paths):
    samples = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"analyze.py: {path}: not a bench_grain_size CSV (missing {', '.join(missing)})")
            for line, row in enumerate(reader, start=2):
                try:
                    s = {c: float(row[c]) for c in COLUMNS}
                except (TypeError, ValueError):
                    sys.exit(f"analyze.py: {path}:{line}: malformed line")
                for c in ("workers", "np", "partitions", "rep"):
                    s[c] = int(s[c])
                samples.append(s)
    if not samples:
        sys.exit("analyze.py: no samples in " + ", ".join(paths))
    return samples


# --- the study ----------------------------------------------------------------------------


def summarise(samples):
    """Per (workers, np): the seed's metrics. Adds per-sample wait times to `samples`."""
    groups = {}
    for s in samples:
        groups.setdefault((s["workers"], s["np"]), []).append(s)
    if not any(w == 1 for w, _ in groups):
        sys.exit("analyze.py: no 1-worker samples: t_d1 (the wait-time baseline) comes from the 1-worker run")
    rows = {}
    for (w, np_), g in sorted(groups.items()):
        secs = [s["seconds"] for s in g]
        rows[(w, np_)] = {
            "workers": w, "np": np_, "partitions": g[0]["partitions"], "runs": len(g),
            "time_mean": mean(secs), "time_sd": stdev(secs), "time_ci90": ci90(secs),
            "idle_rate": harmonic_mean([s["idle_rate"] for s in g]),
            "td": mean([s["task_duration_ns"] for s in g]),
            "to": mean([s["task_overhead_ns"] for s in g]),
            "To": mean([s["mgmt_overhead_per_core_ns"] for s in g]),
            "tasks": mean([s["tasks"] for s in g]),
            "phases": mean([s["phases"] for s in g]),
            "accesses": mean([s["pending_accesses"] for s in g]),
            "misses": mean([s["pending_misses"] for s in g]),
        }
    for (w, np_), r in rows.items():
        one = rows.get((1, np_))
        td1 = one["td"] if one else math.nan
        r["td1"] = td1
        r["range"] = classify(td1)
        r["tw"] = r["td"] - td1                       # Eq.5
        r["Tw"] = r["tw"] * r["tasks"] / w            # Eq.6
        r["tm_wt"] = r["To"] + r["Tw"]                # TM+WT per core
    for s in samples:
        r = rows[(s["workers"], s["np"])]
        s["range"] = r["range"]
        s["Tw"] = (s["task_duration_ns"] - r["td1"]) * s["tasks"] / s["workers"]
        s["tm_wt"] = s["mgmt_overhead_per_core_ns"] + s["Tw"]
    return rows


def correlations(samples):
    """{(workers, range): (distinct np, samples, [r per METRICS])}, every repetition counted."""
    out = {}
    by = {}
    for s in samples:
        by.setdefault((s["workers"], s["range"]), []).append(s)
    for key, g in by.items():
        nps = len({s["np"] for s in g})
        t = [s["seconds"] for s in g]
        xs = [[s["mgmt_overhead_per_core_ns"] for s in g], [s["Tw"] for s in g], [s["tm_wt"] for s in g],
              [s["idle_rate"] for s in g], [s["pending_accesses"] for s in g]]
        rs = [pearson(x, t) if nps >= 3 else math.nan for x in xs]
        out[key] = (nps, len(g), rs)
    return out


# --- formatting ---------------------------------------------------------------------------


def sig(x, digits=3):
    """x with `digits` significant digits, no exponent for ordinary magnitudes."""
    if not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 6 or mag < -4:
        return f"{x:.{digits - 1}e}"
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def count(x):
    return f"{x:,.0f}" if math.isfinite(x) else "—"


def corr(x):
    return "n/a" if not math.isfinite(x) else f"{x:.3f}"


def grain_text(lo, hi):
    if lo == 0:
        return f"< {sig(hi)} µs"
    if math.isinf(hi):
        return f"≥ {sig(lo / 1000)} ms" if lo >= 1000 else f"≥ {sig(lo)} µs"
    return f"{sig(lo)} – {sig(hi)} µs"


def write_summary_csv(path, rows):
    fields = ["workers", "np", "partitions", "range", "runs", "time_s_mean", "time_s_sd", "time_s_ci90",
              "idle_rate_hmean", "td_ns", "to_ns", "To_ns_per_core", "td1_ns", "tw_ns", "Tw_ns_per_core",
              "tm_wt_ns_per_core", "tasks_mean", "phases_mean", "pending_accesses_mean", "pending_misses_mean"]
    keys = ["workers", "np", "partitions", "range", "runs", "time_mean", "time_sd", "time_ci90", "idle_rate",
            "td", "to", "To", "td1", "tw", "Tw", "tm_wt", "tasks", "phases", "accesses", "misses"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(fields)
        for k in sorted(rows):
            r = rows[k]
            w.writerow([r[c] if isinstance(r[c], (int, str)) else f"{r[c]:.10g}" for c in keys])


def write_correlations_csv(path, corrs):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workers", "range", "distinct_np", "samples", "TM", "WT", "WT_TM", "idle_rate", "p_access"])
        for wk in sorted({k[0] for k in corrs}):
            for name in RANGE_NAMES:
                if (wk, name) in corrs:
                    nps, n, rs = corrs[(wk, name)]
                    w.writerow([wk, name, nps, n] + ["" if not math.isfinite(r) else f"{r:.6f}" for r in rs])


def write_summary_md(path, rows, corrs, meta, plotted):
    workers = sorted({w for w, _ in rows})
    L = []
    L.append("# Grain-size study on weft (seed 000 ch.5)")
    L.append("")
    L.append("The 1D heat stencil on dataflow (bench/stencil/weft.cpp's graph) at every partition size "
             "of the sweep, the same total work at each; the counters are weft's "
             "(`weft::counters::snapshot()` differences and the pending-queue counters) over each "
             "measured run. Produced by `scripts/grain_size` and `bench/grain_size/analyze.py`.")
    L.append("")
    for line in meta:
        L.append(f"- {line}")
    if meta:
        L.append("")
    if plotted:
        L.append("![execution time and counters against partition size](grain_size.png)")
        L.append("")
        L.append("(also as [SVG](grain_size.svg))")
    else:
        L.append("(no figure: matplotlib was not available; `apt-get install python3-matplotlib`)")
    L.append("")
    L.append("## Metrics (digest §2)")
    L.append("")
    L.append("- time: wall time of one run (graph construction and all nt steps); mean ± half-width "
             "of the 90 % confidence interval (Student t) over the repetitions")
    L.append("- idle-rate I_r = (Σt_func − Σt_exec) / Σt_func, harmonic mean over the repetitions (Eq.1)")
    L.append("- t_d = Σt_exec / n_t (Eq.2), t_o = (Σt_func − Σt_exec) / n_t (Eq.3), "
             "T_o = (Σt_func − Σt_exec) / n_c (Eq.4, TM), means over the repetitions")
    L.append("- t_d1 = the 1-worker t_d at the same partition size; t_w = t_d − t_d1 (Eq.5); "
             "T_w = t_w · n_t / n_c (Eq.6, WT); TM+WT = T_o + T_w")
    L.append("- pending accesses / misses: `/threads{locality#0/total}/count/pending-accesses` and "
             "`.../pending-misses` over the run, mean over the repetitions")
    L.append("")
    L.append("## Granularity ranges")
    L.append("")
    L.append("By the 1-worker task duration t_d1. The seed's ranges (Haswell, Table 2 footer) leave "
             "gaps between them; each gap is cut at its geometric midpoint (the sweep is logarithmic), "
             "Coarse/Very Coarse at 1 ms as the seed labels it; tasks below the seed's finest "
             "grain (3 µs) are Sub-fine.")
    L.append("")
    L.append("| range | t_d1 here | seed: grain | seed: points per partition |")
    L.append("|---|---|---|---|")
    seed = {r[0]: r for r in SEED_RANGES}
    for name, _, lo, hi in RANGES:
        s = seed.get(name)
        L.append(f"| {name} | {grain_text(lo, hi)} | "
                 f"{f'{s[2]} to {s[3]} µs' if s else '—'} | {s[4] if s else '—'} |")
    for w in workers:
        rs = [rows[k] for k in sorted(rows) if k[0] == w]
        best = min(rs, key=lambda r: r["time_mean"] if math.isfinite(r["time_mean"]) else math.inf)
        L.append("")
        L.append(f"## {w} worker{'s' if w != 1 else ''}")
        L.append("")
        L.append(f"Fastest: np = {best['np']:,} ({best['partitions']:,} partitions), "
                 f"{sig(best['time_mean'] * 1e3)} ms per run, t_d1 = {sig(best['td1'] / 1e3)} µs "
                 f"({best['range']}). Bold: the fastest row.")
        L.append("")
        L.append("| np | partitions | range | runs | time ms (± 90 % CI) | idle-rate % | t_d µs | t_o µs "
                 "| T_o ms/core | t_w µs | T_w ms/core | TM+WT ms/core | tasks | pending accesses "
                 "| pending misses |")
        L.append("|" + "---:|" * 2 + "---|" + "---:|" * 12)
        for r in rs:
            b = "**" if r is best else ""
            L.append(
                f"| {b}{r['np']:,}{b} | {r['partitions']:,} | {r['range']} | {r['runs']} | "
                f"{b}{sig(r['time_mean'] * 1e3)}{b} ± {sig(r['time_ci90'] * 1e3, 2)} | "
                f"{sig(r['idle_rate'] * 100)} | {sig(r['td'] / 1e3)} | {sig(r['to'] / 1e3)} | "
                f"{sig(r['To'] / 1e6)} | {sig(r['tw'] / 1e3)} | {sig(r['Tw'] / 1e6)} | "
                f"{sig(r['tm_wt'] / 1e6)} | {count(r['tasks'])} | {count(r['accesses'])} | {count(r['misses'])} |")
    L.append("")
    L.append("## Correlation with execution time (the seed's Table 2)")
    L.append("")
    L.append("Pearson r of each metric against the execution time, per worker count and granularity "
             "range, over every repetition of every partition size in the range (as the seed did). "
             "TM = T_o, WT = T_w, both per core; P-Access = pending-queue accesses. n/a: fewer than "
             "3 distinct partition sizes in the range (or a constant metric). Beside ours, the seed's "
             "Haswell rows at 4 cores, its smallest configuration (weft's at 2 workers is the "
             "nearest we have).")
    L.append("")
    L.append("| Cores | Granularity | TM | WT | WT+TM | Idle-rate | P-Access | np sizes / samples |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in RANGE_NAMES:
        for w in sorted(workers, reverse=True):
            if (w, name) not in corrs:
                L.append(f"| {w} (weft) | {name} | " + " | ".join(["n/a"] * 5) + " | 0 / 0 |")
                continue
            nps, n, rvals = corrs[(w, name)]
            L.append(f"| {w} (weft) | {name} | " + " | ".join(corr(x) for x in rvals) + f" | {nps} / {n} |")
        if name in SEED_HASWELL_4:
            L.append(f"| 4 (seed, Haswell) | {name} | " +
                     " | ".join(f"{x:.6f}" for x in SEED_HASWELL_4[name]) + " | — |")
    unclassified = [k for k, r in rows.items() if r["range"] == "unclassified"]
    if unclassified:
        L.append("")
        L.append("Unclassified (no 1-worker run at that size, so no t_d1): " +
                 ", ".join(f"np={np_:,} at {w} workers" for w, np_ in sorted(unclassified)) + ".")
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


# --- the plot -----------------------------------------------------------------------------


def plot(rows, out_dir):
    """Writes grain_size.png and .svg; False (with a hint on stderr) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, LogLocator
    except ImportError:
        print(f"analyze.py: matplotlib not found for {sys.executable}: no plot. Install it with "
              "`apt-get install python3-matplotlib` (Debian's /usr/bin/python3 sees it); "
              "the tables are written.", file=sys.stderr)
        return False

    workers = sorted({w for w, _ in rows})
    fig, axes = plt.subplots(5, 1, sharex=True, figsize=(9, 15),
                             gridspec_kw={"height_ratios": [1.6, 1, 1, 1, 1]})
    colors = {w: f"C{i}" for i, w in enumerate(workers)}

    def series(w, key, scale=1.0):
        rs = [rows[k] for k in sorted(rows) if k[0] == w]
        return [r["np"] for r in rs], [r[key] * scale for r in rs]

    ax = axes[0]
    for w in workers:
        xs, ys = series(w, "time_mean")
        _, es = series(w, "time_ci90")
        es = [e if math.isfinite(e) else 0.0 for e in es]
        ax.errorbar(xs, ys, yerr=es, marker="o", ms=3, capsize=2, color=colors[w],
                    label=f"{w} worker{'s' if w != 1 else ''}")
        i = min(range(len(ys)), key=lambda j: ys[j] if math.isfinite(ys[j]) else math.inf)
        ax.plot([xs[i]], [ys[i]], marker="*", ms=14, color=colors[w], markeredgecolor="black")
    ax.set_yscale("log")
    # The U is often less than a decade deep: label 1-2-5 steps, not only powers of ten.
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_ylabel("execution time per run (s)\nmean, 90 % CI")
    ax.legend(loc="upper center")

    ax = axes[1]
    for w in workers:
        xs, ys = series(w, "idle_rate", 100.0)
        ax.plot(xs, ys, marker="o", ms=3, color=colors[w])
    ax.set_ylabel("idle-rate (%)\nharmonic mean")
    ax.set_ylim(bottom=0)

    ax = axes[2]
    for w in workers:
        xs, ys = series(w, "td", 1e-3)
        ax.plot(xs, ys, marker="o", ms=3, color=colors[w], label=f"t_d, {w}w")
        xs, ys = series(w, "to", 1e-3)
        ax.plot(xs, ys, marker="s", ms=3, ls="--", color=colors[w], label=f"t_o, {w}w")
    ax.set_yscale("log")
    ax.set_ylabel("per task (µs)\nt_d solid, t_o dashed")
    ax.legend(loc="best", ncol=2, fontsize="small")

    ax = axes[3]
    for w in workers:
        xs, ys = series(w, "tm_wt", 1e-6)
        ax.plot(xs, ys, marker="o", ms=3, color=colors[w], label=f"TM+WT, {w}w")
        if w == 1:
            continue  # t_w is measured against the 1-worker run itself: 0 by definition
        xs, ys = series(w, "Tw", 1e-6)
        ax.plot(xs, ys, marker="s", ms=3, ls="--", color=colors[w], label=f"T_w, {w}w")
    ax.axhline(0, color="gray", lw=0.6)
    # T_w may be negative (digest §2: helper tasks at the coarse end), and the fine end
    # dwarfs the middle: a symmetric log scale shows both.
    mags = [abs(r[k]) * 1e-6 for r in rows.values() for k in ("tm_wt", "Tw") if math.isfinite(r[k]) and r[k] != 0]
    if mags:
        ax.set_yscale("symlog", linthresh=10 ** math.floor(math.log10(max(min(mags), max(mags) * 1e-4))))
    ax.set_ylabel("per core (ms, symlog)\nTM+WT solid, T_w dashed")
    ax.legend(loc="best", ncol=2, fontsize="small")

    ax = axes[4]
    for w in workers:
        xs, ys = series(w, "accesses")
        ax.plot(xs, ys, marker="o", ms=3, color=colors[w], label=f"accesses, {w}w")
        xs, ys = series(w, "misses")
        ax.plot(xs, ys, marker="s", ms=3, ls=":", color=colors[w], label=f"misses, {w}w")
    ax.set_yscale("log")
    ax.set_ylabel("pending queue\naccesses / misses")
    ax.legend(loc="best", ncol=2, fontsize="small")
    ax.set_xscale("log")
    ax.set_xlabel("partition size (points per partition, np)")

    # The granularity ranges (by the 1-worker t_d1) as shaded bands behind every panel.
    ones = sorted((np_, r["range"]) for (w, np_), r in rows.items() if w == 1)
    bands = []
    for i, (np_, name) in enumerate(ones):
        left = math.sqrt(ones[i - 1][0] * np_) if i > 0 else np_ / 1.3
        right = math.sqrt(np_ * ones[i + 1][0]) if i + 1 < len(ones) else np_ * 1.3
        if bands and bands[-1][2] == name:
            bands[-1][1] = right
        else:
            bands.append([left, right, name])
    short = {r[0]: r[1] for r in RANGES}
    for k, (left, right, name) in enumerate(bands):
        for a in axes:
            if k % 2 == 0:
                a.axvspan(left, right, color="0.92", zorder=0)
        axes[0].text(math.sqrt(left * right), 1.0, short.get(name, "?"), transform=axes[0].get_xaxis_transform(),
                     ha="center", va="bottom", fontsize="small", color="0.35")
    axes[0].set_title("Grain-size study: 1D stencil on weft dataflow (seed 000 ch.5)\n"
                      "bands: granularity range by 1-worker task duration; ★ fastest", pad=18)
    for a in axes:
        a.grid(True, which="major", alpha=0.3)

    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "grain_size.png"), dpi=110)
    fig.savefig(os.path.join(out_dir, "grain_size.svg"))
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description="Tables, correlations and plot of the grain-size study.")
    ap.add_argument("csv", nargs="+", help="bench_grain_size output (1-worker run required)")
    ap.add_argument("--out", help="output directory (default: the first CSV's directory)")
    ap.add_argument("--meta", help="file of run details (date, command, machine) to quote in summary.md")
    args = ap.parse_args()

    out_dir = args.out or os.path.dirname(os.path.abspath(args.csv[0]))
    os.makedirs(out_dir, exist_ok=True)
    meta = []
    if args.meta:
        with open(args.meta) as f:
            meta = [line.rstrip("\n") for line in f if line.strip()]

    samples = read_samples(args.csv)
    rows = summarise(samples)
    corrs = correlations(samples)
    plotted = plot(rows, out_dir)
    write_summary_csv(os.path.join(out_dir, "summary.csv"), rows)
    write_correlations_csv(os.path.join(out_dir, "correlations.csv"), corrs)
    write_summary_md(os.path.join(out_dir, "summary.md"), rows, corrs, meta, plotted)
    written = ["summary.md", "summary.csv", "correlations.csv"] + (["grain_size.png", "grain_size.svg"] if plotted else [])
    print(f"analyze.py: wrote {', '.join(written)} to {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
