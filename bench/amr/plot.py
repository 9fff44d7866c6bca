#!/usr/bin/env python3
"""SVG plots of the AMR benchmark (seed 004 Figs. 5-6 and the grain sweep), no libraries.

  plot.py steps OUT.svg TITLE FILE.csv...   the steps each point reached in a fixed wall
                                            time (the CSVs of --wall --csv): panel (a) the
                                            step count of the finest level at each r, panel
                                            (b) the simulated time reached there
  plot.py grain OUT.svg TITLE RESULTS.txt   ns per point update against the grain, one line
                                            per schedule and worker count (weft-bench lines)
  plot.py table RESULTS.txt                 the summary tables of bench/amr/run, with what
                                            the seed reports beside them
"""
import csv
import math
import sys
from collections import defaultdict

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
DASHES = ["", "6,3", "2,2", "8,3,2,3"]


def nice_ticks(lo, hi, count=5):
    """About `count` round tick values, the first <= lo and the last >= hi."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    first = math.floor(lo / step) * step
    last = math.ceil(hi / step) * step
    return [round(first + k * step, 10) for k in range(int(round((last - first) / step)) + 1)]


def fmt(v):
    return f"{v:g}" if abs(v) < 1e6 else f"{v:.3g}"


class panel:
    """One plot area inside an SVG: axes, ticks, labels, polylines and a legend."""

    def __init__(self, x0, y0, w, h, xlabel, ylabel, title, logx=False):
        self.x0, self.y0, self.w, self.h = x0, y0, w, h
        self.xlabel, self.ylabel, self.title, self.logx = xlabel, ylabel, title, logx
        self.series = []  # (label, colour, dash, [(x, y)])

    def add(self, label, colour, dash, points):
        if points:
            self.series.append((label, colour, dash, sorted(points)))

    def svg(self):
        xs = [p[0] for s in self.series for p in s[3]]
        ys = [p[1] for s in self.series for p in s[3]]
        if not xs:
            return [f'<text x="{self.x0}" y="{self.y0 + 20}">no data</text>']
        tx = (lambda v: math.log2(v)) if self.logx else (lambda v: v)
        xlo, xhi = tx(min(xs)), tx(max(xs))
        if xhi == xlo:
            xhi = xlo + 1
        ylo, yhi = min(ys), max(ys)
        pad = (yhi - ylo) * 0.05 or abs(yhi) * 0.05 or 1.0
        yticks = nice_ticks(ylo - pad, yhi + pad)
        ylo, yhi = yticks[0], yticks[-1]
        X = lambda v: self.x0 + (tx(v) - xlo) / (xhi - xlo) * self.w
        Y = lambda v: self.y0 + self.h - (v - ylo) / (yhi - ylo) * self.h
        out = [f'<rect x="{self.x0}" y="{self.y0}" width="{self.w}" height="{self.h}" fill="none" stroke="#444"/>',
               f'<text x="{self.x0 + self.w / 2}" y="{self.y0 - 8}" text-anchor="middle" font-weight="bold">'
               f'{self.title}</text>',
               f'<text x="{self.x0 + self.w / 2}" y="{self.y0 + self.h + 36}" text-anchor="middle">{self.xlabel}</text>',
               f'<text transform="translate({self.x0 - 58},{self.y0 + self.h / 2}) rotate(-90)" '
               f'text-anchor="middle">{self.ylabel}</text>']
        for t in yticks:
            out.append(f'<line x1="{self.x0}" x2="{self.x0 + self.w}" y1="{Y(t):.1f}" y2="{Y(t):.1f}" stroke="#ddd"/>')
            out.append(f'<text x="{self.x0 - 4}" y="{Y(t) + 4:.1f}" text-anchor="end">{fmt(t)}</text>')
        if self.logx:
            xt = sorted(set(xs))
        else:
            xt = [t for t in nice_ticks(xlo, xhi) if xlo <= t <= xhi]
        for t in xt:
            out.append(f'<line x1="{X(t):.1f}" x2="{X(t):.1f}" y1="{self.y0 + self.h}" y2="{self.y0 + self.h + 4}" '
                       f'stroke="#444"/>')
            out.append(f'<text x="{X(t):.1f}" y="{self.y0 + self.h + 18}" text-anchor="middle">{fmt(t)}</text>')
        for i, (label, colour, dash, pts) in enumerate(self.series):
            path = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in pts)
            da = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.6"{da}/>')
            if len(pts) <= 16:
                out += [f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="2.5" fill="{colour}"/>' for x, y in pts]
            ly = self.y0 + 14 + 16 * i
            out.append(f'<line x1="{self.x0 + 10}" x2="{self.x0 + 34}" y1="{ly - 4}" y2="{ly - 4}" stroke="{colour}" '
                       f'stroke-width="2"{da}/>')
            out.append(f'<text x="{self.x0 + 40}" y="{ly}">{label}</text>')
        return out


def write_svg(path, width, height, title, panels):
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="12">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">{title}</text>']
    for p in panels:
        body += p.svg()
    body.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(body) + "\n")


def plot_steps(out, title, files):
    runs = defaultdict(list)  # (impl, workers, wall) -> [(r, steps, time)]
    for name in files:
        with open(name) as f:
            for row in csv.DictReader(f):
                if row["finest"] != "1":
                    continue
                key = (row["impl"], int(row["workers"]), float(row["wall"]))
                runs[key].append((float(row["r"]), int(row["steps"]), float(row["time"])))
    a = panel(90, 50, 620, 300, "r", "time step reached (finest level at r)", "(a) steps reached")
    b = panel(90, 420, 620, 300, "r", "simulated time reached", "(b) time reached (t = steps x dt of the level)")
    walls = sorted({k[2] for k in runs})
    for i, key in enumerate(sorted(runs)):
        impl, workers, wall = key
        colour = COLOURS[i % len(COLOURS)]
        dash = DASHES[walls.index(wall) % len(DASHES)]
        label = f"{impl}, {workers} workers, {fmt(wall)} s"
        a.add(label, colour, dash, [(r, s) for r, s, _ in runs[key]])
        b.add(label, colour, dash, [(r, t) for r, _, t in runs[key]])
    write_svg(out, 760, 770, title, [a, b])


def plot_grain(out, title, results):
    lines = defaultdict(list)  # (impl, workers) -> [(grain, ns)]
    with open(results) as f:
        for line in f:
            if not line.startswith("weft-bench problem=amr"):
                continue
            kv = dict(item.split("=", 1) for item in line.split()[1:] if "=" in item)
            if kv.get("mode") != "steps":
                continue
            lines[(kv["impl"], int(kv["workers"]))].append((int(kv["n"]), float(kv["ns_per_call"])))
    p = panel(90, 50, 620, 380, "grain (points per block, log scale)", "ns per point update", title, logx=True)
    impls = sorted({k[0] for k in lines})
    for key in sorted(lines):
        impl, workers = key
        best = defaultdict(list)
        for g, ns in lines[key]:
            best[g].append(ns)
        pts = [(g, sorted(v)[len(v) // 2]) for g, v in best.items()]  # median of the reps
        p.add(f"{impl}, {workers} workers", COLOURS[impls.index(impl) % len(COLOURS)],
              DASHES[(workers - 1) % len(DASHES)], pts)
    write_svg(out, 760, 490, "", [p])


def parse_results(path):
    """The weft-bench problem=amr lines of a file, as dicts (fig= from a preceding '# fig=' line)."""
    rows, fig = [], ""
    with open(path) as f:
        for line in f:
            if line.startswith("# fig="):
                fig = line.split("=", 1)[1].strip()
            if line.startswith("weft-bench problem=amr"):
                kv = dict(item.split("=", 1) for item in line.split()[1:] if "=" in item)
                kv["fig"] = fig
                rows.append(kv)
    return rows


def print_tables(path):
    rows = parse_results(path)
    walls = [r for r in rows if r.get("mode") == "wall"]
    if walls:
        print("Seed 004 Figs. 5-6: the time step each point reached in a fixed wall-clock time")
        print(f"{'fig':<4}{'levels':>6}{'nr':>7}{'grain':>6}  {'schedule':<14}{'workers':>7}{'wall s':>7}  "
              f"{'level-0 steps':>20}  {'finest-level steps':>20}  {'simulated time':>23}  {'Mupd/s':>7}  "
              f"{'÷ barrier':>9}")
        same = lambda r: (r['fig'], r['levels'], r['nr'], r['n'], r['workers'], r['wall'])
        barrier = {same(r): r for r in walls if r['impl'] == 'weft-barrier'}
        mean_l0 = lambda r: float(r['steps_l0'].split(':')[1])
        for r in walls:
            last = max(int(k[len("steps_l"):]) for k in r if k.startswith("steps_l"))
            l0 = r["steps_l0"].replace(":", "/")
            lf = r[f"steps_l{last}"].replace(":", "/")
            t = "/".join(f"{float(x):.3f}" for x in r["time_reached"].split(":"))
            rate = int(r["calls"]) / float(r["seconds"]) / 1e6
            b = barrier.get(same(r))
            ratio = f"{mean_l0(r) / mean_l0(b):.2f}" if b is not None and r is not b else ""
            print(f"{r['fig']:<4}{r['levels']:>6}{r['nr']:>7}{r['n']:>6}  {r['impl']:<14}{r['workers']:>7}"
                  f"{float(r['wall']):>7g}  {l0:>20}  {lf:>20}  {t:>23}  {rate:>7.2f}  {ratio:>9}")
        print("  (steps: min/mean/max over the proper points of the level; simulated time: over the points")
        print("   of the finest level at each r; Mupd/s: million point updates per second; ÷ barrier: the")
        print("   mean level-0 steps reached over the barrier schedule's in the same setting)")
        print("Seed: Fig. 5 (2 levels, HPX without barriers, 60/120/180 s): the steps reached form an upward")
        print("  cone with its tip in the finest region, some points several steps ahead of others (L128).")
        print("  Fig. 6 (1 level, 4 processors, 10/60 s): without the barrier more time steps than with it;")
        print("  on 1 processor removing the barrier has no impact (L126, L136). No numbers in the text.")
        print()
    sweep = [r for r in rows if r.get("mode") == "steps"]
    if sweep:
        ns = defaultdict(list)
        per_task = defaultdict(list)
        for r in sweep:
            key = (int(r["n"]), r["impl"], int(r["workers"]))
            ns[key].append(float(r["ns_per_call"]))
            per_task[key].append(float(r["seconds"]) * 1e9 / int(r["tasks"]))
        med = lambda v: sorted(v)[len(v) // 2]
        cols = sorted({(k[1], k[2]) for k in ns}, key=lambda c: (c[1], c[0]))
        grains = sorted({k[0] for k in ns})
        print("Grain sweep: ns per point update (median of the runs), and the dataflow schedule's cost per task")
        print("at 1 worker beyond the serial loop's (its overhead per task)")
        head = f"{'grain':>7}" + "".join(f"{c[0] + '@' + str(c[1]):>18}" for c in cols) + f"{'df overhead/task':>18}"
        print(head)
        for g in grains:
            line = f"{g:>7}"
            for c in cols:
                v = ns.get((g, c[0], c[1]))
                line += f"{med(v):>18.2f}" if v else f"{'-':>18}"
            df, se = per_task.get((g, "weft-dataflow", 1)), per_task.get((g, "serial", 1))
            line += f"{(med(df) - med(se)) / 1000:>16.2f}us" if df and se else f"{'-':>18}"
            print(line)
        hashes = {r["result"] for r in sweep}
        print(f"  final-state hashes of all {len(sweep)} fixed-step runs (every grain, schedule, worker count): "
              f"{'all equal' if len(hashes) == 1 else 'DIFFER: ' + ' '.join(sorted(hashes))}")
        print("Seed: Fig. 3 (3-D, plot only): the optimal grain is much smaller than the blocks a clustering")
        print("  algorithm picks and hardly depends on the core count (L104, L118); HPX-thread overhead about")
        print("  3-5 us (L138).")
        if len(hashes) != 1:
            return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "table":
        return print_tables(argv[2])
    if len(argv) < 5 or argv[1] not in ("steps", "grain"):
        sys.stderr.write(__doc__)
        return 2
    if argv[1] == "steps":
        plot_steps(argv[2], argv[3], argv[4:])
    else:
        plot_grain(argv[2], argv[3], argv[4])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
