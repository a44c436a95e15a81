#!/usr/bin/env python3
"""PNG figures of a run's snapshot file: a row of frames of one plane (|v| or a component) and the
peak ground velocity map, with the stations and sources of the run marked when its output is given.

  tools/plot_snapshots.py RUN_snapshots.h5 [--plane z0] [--frames 6] [--field norm] [--run RUN.h5]
                          [--out-frames frames.png] [--out-pgv pgv.png]
Needs h5py, numpy and matplotlib (Debian's python3-h5py, python3-numpy, python3-matplotlib).
"""
import argparse
import sys

from pydeps import require

h5py, matplotlib, np = require("h5py", "matplotlib", "numpy")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def image(data, name, h):
    axis = name[0]
    if axis == "z":
        d = data[0]  # [y][x]
        return d.T[::-1], "y east (km)", "x north (km)", [0, (d.shape[0] - 1) * h / 1e3, 0, (d.shape[1] - 1) * h / 1e3]
    d = data[:, 0, :] if axis == "y" else data[:, :, 0]
    lab = "x north (km)" if axis == "y" else "y east (km)"
    return d, lab, "z depth (km)", [0, (d.shape[1] - 1) * h / 1e3, (d.shape[0] - 1) * h / 1e3, 0]


def marks(ax, run, plane):
    if not run or plane[0] != "z":
        return
    with h5py.File(run, "r") as f:
        pos = f["/stations/position"][...] / 1e3
    ax.plot(pos[:, 1], pos[:, 0], "v", ms=5, mfc="white", mec="black", lw=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshots")
    ap.add_argument("--plane", default="z0", help="group of the plane (z0, y120, ...; default z0)")
    ap.add_argument("--frames", type=int, default=6, help="frames shown, evenly spread (default 6)")
    ap.add_argument("--field", default="norm", choices=["norm", "vx", "vy", "vz"])
    ap.add_argument("--run", help="the run's HDF5 output, to mark the stations")
    ap.add_argument("--out-frames", default="snapshots.png")
    ap.add_argument("--out-pgv", default="pgv.png")
    a = ap.parse_args()
    with h5py.File(a.snapshots, "r") as f:
        h = float(f.attrs["h"])
        if a.plane not in f:
            sys.exit(f"plot_snapshots.py: {a.snapshots} has no plane '{a.plane}' (has {', '.join(k for k in f if k != 'pgv')})")
        names = sorted(f[a.plane])
        pick = [names[int(round(i))] for i in np.linspace(0, len(names) - 1, min(a.frames, len(names)))]
        frames = [(float(f[a.plane][n].attrs["time"]), f[a.plane][n][a.field][...]) for n in pick]
        pgv = {k: f["pgv"][k][...] for k in f["pgv"]} if "pgv" in f else None
    vmax = max(np.abs(d).max() for _, d in frames) or 1.0
    fig, axes = plt.subplots(1, len(frames), figsize=(3.2 * len(frames), 3.4), squeeze=False)
    for ax, (t, d) in zip(axes[0], frames):
        img, xl, yl, ext = image(d, a.plane, h)
        cmap, lo = ("magma", 0) if a.field == "norm" else ("seismic", -vmax)
        im = ax.imshow(img, extent=ext, cmap=cmap, vmin=lo, vmax=vmax, aspect="equal")
        marks(ax, a.run, a.plane)
        ax.set_title(f"t = {t:.2f} s", fontsize=9)
        ax.set_xlabel(xl, fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel(yl, fontsize=8)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label=f"{'|v|' if a.field == 'norm' else a.field} (m/s)")
    fig.suptitle(f"{a.snapshots}: plane {a.plane}", fontsize=9)
    fig.savefig(a.out_frames, dpi=110, bbox_inches="tight")
    print(f"wrote {a.out_frames}")
    if pgv:
        fig, axes = plt.subplots(1, 2, figsize=(9, 4))
        for ax, key in zip(axes, ("horizontal", "norm")):
            img, xl, yl, ext = image(pgv[key], "z0", h)
            im = ax.imshow(img, extent=ext, cmap="viridis", norm=matplotlib.colors.LogNorm(
                vmin=max(img.max() * 1e-3, 1e-12), vmax=max(img.max(), 1e-12)), aspect="equal")
            marks(ax, a.run, "z0")
            ax.set_title(f"PGV, {'horizontal |(vx, vy)|' if key == 'horizontal' else '|v|'}", fontsize=9)
            ax.set_xlabel(xl, fontsize=8)
            ax.set_ylabel(yl, fontsize=8)
            fig.colorbar(im, ax=ax, shrink=0.8, label="m/s")
        fig.tight_layout()
        fig.savefig(a.out_pgv, dpi=110)
        print(f"wrote {a.out_pgv}")


if __name__ == "__main__":
    main()
