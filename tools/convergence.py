#!/usr/bin/env python3
"""Self-convergence of runs of one case at successive resolutions (e.g. tools/loh1.py at h = 200,
100, 50, 25 m): the misfit between each pair of successive runs, which a converging solver shrinks
at each halving of h (by 2^p for order p).

  tools/convergence.py loh1_h200.h5 loh1_h100.h5 loh1_h50.h5 [--lowpass 2] [--plot fig.png --station R10]

Runs are given coarse to fine; stations are matched by name. Each trace is low-passed (zero phase,
|H|^2 = 1 / (1 + (f/fc)^8), when --lowpass is given) at its own sampling, then interpolated onto the
coarser run's samples. misfit(A, B) = ||A - B|| / ||B|| over every station and component.
Needs numpy and h5py (Debian's python3-numpy, python3-h5py; matplotlib for --plot).
"""
import argparse
import json
import sys

from pydeps import require

h5py, np = require("h5py", "numpy")


def load(path):
    with h5py.File(path, "r") as f:
        ds = f["/seismograms/velocity"]
        v = ds[...].astype(np.float64)
        dt, t0 = float(ds.attrs["dt"]), float(ds.attrs["t0"])
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["/stations/name"][...]]
        grid = f["/run"].attrs["grid"]
        grid = grid.decode() if isinstance(grid, bytes) else str(grid)
    return {"path": path, "v": v, "t": t0 + dt * np.arange(v.shape[2]), "dt": dt,
            "names": names, "grid": grid}


def lowpass(x, dt, fc):
    if not fc:
        return x
    n = x.shape[-1]
    pad = 1 << int(np.ceil(np.log2(2 * n)))  # zero padding: no wrap-around
    f = np.fft.rfftfreq(pad, dt)
    h = 1.0 / (1.0 + (f / fc) ** 8)
    return np.fft.irfft(np.fft.rfft(x, pad, axis=-1) * h, pad, axis=-1)[..., :n]


def on_times(run, t, fc):
    v = lowpass(run["v"], run["dt"], fc)
    out = np.empty(v.shape[:2] + (len(t),))
    for s in range(v.shape[0]):
        for c in range(3):
            out[s, c] = np.interp(t, run["t"], v[s, c])
    return out


def misfit(coarse, fine, fc, stations=None):
    names = [n for n in coarse["names"] if n in fine["names"] and (not stations or n in stations)]
    if not names:
        sys.exit(f"convergence.py: {coarse['path']} and {fine['path']} have no station in common")
    t = coarse["t"][coarse["t"] <= fine["t"][-1]]
    a = on_times(coarse, t, fc)[[coarse["names"].index(n) for n in names]]
    b = on_times(fine, t, fc)[[fine["names"].index(n) for n in names]]
    return float(np.linalg.norm(a - b) / np.linalg.norm(b)), t, a, b, names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="HDF5 outputs, coarse to fine")
    ap.add_argument("--lowpass", type=float, default=0.0, help="corner frequency, Hz (default: none)")
    ap.add_argument("--stations", nargs="*", help="only these stations")
    ap.add_argument("--json", help="write the table as JSON too")
    ap.add_argument("--plot", help="PNG: one station's three components at every resolution")
    ap.add_argument("--station", default=None, help="station of --plot (default: the last)")
    a = ap.parse_args()
    if len(a.runs) < 2:
        sys.exit("convergence.py: give at least two runs, coarse to fine")
    runs = [load(p) for p in a.runs]
    rows = []
    print(f"low-pass: {a.lowpass:g} Hz" if a.lowpass else "no low-pass")
    print(f"{'coarse':>28} {'fine':>28} {'misfit':>10} {'ratio':>7}")
    for i in range(len(runs) - 1):
        m = misfit(runs[i], runs[i + 1], a.lowpass, a.stations)[0]
        ratio = rows[-1]["misfit"] / m if rows else None
        rows.append({"coarse": runs[i]["path"], "fine": runs[i + 1]["path"], "misfit": m, "ratio": ratio})
        print(f"{runs[i]['grid']:>28} {runs[i + 1]['grid']:>28} {m:10.4f} {ratio if ratio else float('nan'):7.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"lowpass_hz": a.lowpass, "pairs": rows}, f, indent=1)
    if a.plot:
        plot(runs, a.plot, a.station or runs[-1]["names"][-1], a.lowpass)


def plot(runs, out, station, fc):
    matplotlib = require("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 1, figsize=(9, 7), sharex=True)
    for run in runs:
        if station not in run["names"]:
            sys.exit(f"convergence.py: {run['path']} has no station {station}")
        s = run["names"].index(station)
        v = lowpass(run["v"][s], run["dt"], fc)
        for c, ax in enumerate(axes):
            ax.plot(run["t"], v[c], lw=0.9, label=run["grid"])
    for c, ax in enumerate(axes):
        ax.set_ylabel(f"v{'xyz'[c]} (m/s)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper left")
    axes[0].set_title(f"{station}" + (f", low-passed at {fc:g} Hz" if fc else ""))
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
