#!/usr/bin/env python3
"""Seismograms of a run as PNG: three components per station, optionally over a second run.

  tools/plot_seismograms.py RUN.h5 [--compare OTHER.h5] [--stations EPI FAR] [--out seismograms.png]

One row per station, one column per component (vx north, vy east, vz down), time in seconds from the
run's first sample (velocities live at half steps: t = t0 + i dt). With --compare, the second run is
drawn dashed on the same axes and the relative L2 difference per trace is written in each panel;
its stations are matched by name. Reads the HDF5 layout described in the README; either of RUN and
OTHER may also be a folder of Ondes3D's station files (obs<N>.dat, either of its layouts, as
`ondes3d compare` reads them: `step vx vy vz`, or the header `n x y z`, `steps dt` then `vx vy vz`
and maybe six stresses; its axes east, north, up, drawn in ours), whose samples take the other
run's times where it has as many, else its own dt (or step numbers).
"""
import argparse
import os
import re
import sys

from pydeps import require

h5py, matplotlib, np = require("h5py", "matplotlib", "numpy")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COMPONENTS = ("vx (north)", "vy (east)", "vz (down)")


def load_ondes3d(folder):
    """Ondes3D's station files of `folder` (its obs<N>.dat), in our axes: north, east, down."""
    files = sorted((int(m.group(1)), f) for f in os.listdir(folder) if (m := re.fullmatch(r"obs(\d+)\.dat", f)))
    if not files:
        sys.exit(f"{folder}: no Ondes3D station file (obs<N>.dat)")
    traces, names, dt = [], [], None
    for n, f in files:
        path = os.path.join(folder, f)
        with open(path) as fh:
            lines = [line.split() for line in fh]
        header = len(lines) >= 2 and len(lines[1]) == 2
        if header:
            dt = float(lines[1][1])
        rows = [r for r in lines[2 if header else 0:] if r]
        width = (3, 9) if header else (4,)
        bad = [i for i, r in enumerate(rows) if len(r) not in width]
        if bad:
            sys.exit(f"{path}: line {bad[0] + (3 if header else 1)} is not "
                     + ("'vx vy vz' (or with six stresses) after 'n x y z' and 'steps dt'" if header
                        else "'step vx vy vz' (nor the header 'n x y z', 'steps dt')"))
        v = np.array([[float(x) for x in r[(0 if header else 1):(3 if header else 4)]] for r in rows])
        traces.append(np.stack([v[:, 1], v[:, 0], -v[:, 2]]))  # north, east, down
        names.append(f"obs{n}")
    steps = {t.shape[1] for t in traces}
    if len(steps) != 1:
        sys.exit(f"{folder}: its station files hold different numbers of steps ({sorted(steps)})")
    data = np.stack(traces)
    return {"t": (np.arange(1, data.shape[2] + 1) * dt) if dt else np.arange(1, data.shape[2] + 1), "data": data,
            "names": names, "ondes3d": True}


def load(path):
    if os.path.isdir(path):
        return load_ondes3d(path)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        sys.exit(f"{path}: cannot open as HDF5 ({e})")
    with f:
        if "seismograms/velocity" not in f:
            sys.exit(f"{path}: no /seismograms/velocity (not an ondes3d output?)")
        v = f["seismograms/velocity"]
        dt, t0 = float(v.attrs["dt"]), float(v.attrs["t0"])
        data = v[()]
        names = [n.decode() if isinstance(n, bytes) else n for n in f["stations/name"][()]]
    return {"t": t0 + dt * np.arange(data.shape[2]), "data": data, "names": names, "ondes3d": False}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--compare", help="a second run (or reference) drawn dashed")
    ap.add_argument("--stations", nargs="+", help="names of the stations to draw (default: all)")
    ap.add_argument("--out", default="seismograms.png")
    args = ap.parse_args()
    a = load(args.run)
    b = load(args.compare) if args.compare else None
    # Ondes3D's files carry steps, not times: where they hold as many samples, the other run's times.
    for x, y in ((a, b), (b, a)):
        if x is not None and y is not None and x["ondes3d"] and not y["ondes3d"] and x["data"].shape[2] == y["data"].shape[2]:
            x["t"] = y["t"]
    names = args.stations or a["names"]
    missing = [n for n in names if n not in a["names"]]
    if missing:
        sys.exit(f"{args.run}: no station {', '.join(missing)}; it has {', '.join(a['names'])}")
    fig, axes = plt.subplots(len(names), 3, figsize=(13, 2.2 * len(names) + 0.8), squeeze=False, sharex=True)
    for row, name in enumerate(names):
        s = a["names"].index(name)
        for c in range(3):
            ax = axes[row][c]
            ax.plot(a["t"], a["data"][s, c], lw=1, label=args.run)
            if b is not None and name in b["names"]:
                other = b["data"][b["names"].index(name), c]
                ax.plot(b["t"], other, "--", lw=1, label=args.compare)
                if len(other) == len(a["data"][s, c]):
                    ref = np.linalg.norm(other)
                    diff = np.linalg.norm(a["data"][s, c] - other) / ref if ref > 0 else float("nan")
                    ax.text(0.99, 0.95, f"rel. L2 {diff:.2e}", transform=ax.transAxes, ha="right", va="top",
                            fontsize=8)
            if row == 0:
                ax.set_title(COMPONENTS[c])
            if c == 0:
                ax.set_ylabel(f"{name}\nm/s")
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    if b is not None:
        axes[0][0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"{args.out}: {len(names)} station(s), {a['data'].shape[2]} samples")


if __name__ == "__main__":
    main()
