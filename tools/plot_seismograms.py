#!/usr/bin/env python3
"""Seismograms of a run as PNG: three components per station, optionally over a second run.

  tools/plot_seismograms.py RUN.h5 [--compare OTHER.h5] [--stations EPI FAR] [--out seismograms.png]

One row per station, one column per component (vx north, vy east, vz down), time in seconds from the
run's first sample (velocities live at half steps: t = t0 + i dt). With --compare, the second run is
drawn dashed on the same axes and the relative L2 difference per trace is written in each panel;
its stations are matched by name. Reads the HDF5 layout described in the README.
"""
import argparse
import sys

from pydeps import require

h5py, matplotlib, np = require("h5py", "matplotlib", "numpy")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COMPONENTS = ("vx (north)", "vy (east)", "vz (down)")


def load(path):
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
    return {"t": t0 + dt * np.arange(data.shape[2]), "data": data, "names": names}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--compare", help="a second run (or reference) drawn dashed")
    ap.add_argument("--stations", nargs="+", help="names of the stations to draw (default: all)")
    ap.add_argument("--out", default="seismograms.png")
    args = ap.parse_args()
    a = load(args.run)
    b = load(args.compare) if args.compare else None
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
