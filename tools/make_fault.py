#!/usr/bin/env python3
"""Writes a kinematic finite fault (a file of point sources, the format [[faults]] reads) and a
case that runs it: a rectangular fault of given strike, dip and rake cut into n_along x n_down
subfaults, each a point source of equal moment whose rupture starts when a front spreading from
the hypocentre at speed vr reaches it, with a smooth-ramp moment rate of rise time T.

  tools/make_fault.py --out-dir inputs/finite_fault        # 50 x 25 = 1250 points, Mw 6.0

Fault file columns: x y z m0 strike dip rake rupture_time rise_time (metres, N m, degrees, s).
"""
import argparse
import math
import os


def fault_points(a):
    # Unit vectors along strike (horizontal) and down dip, x north, y east, z down.
    s, d = math.radians(a.strike), math.radians(a.dip)
    along = (math.cos(s), math.sin(s), 0.0)
    down = (-math.sin(s) * math.cos(d), math.cos(s) * math.cos(d), math.sin(d))
    dl, dw = a.length / a.n_along, a.width / a.n_down
    m0 = 10 ** (1.5 * a.mw + 9.1) / (a.n_along * a.n_down)
    hypo = (a.length * a.hypo_along, a.width * a.hypo_down)  # on the fault plane
    rows = []
    for iw in range(a.n_down):
        for il in range(a.n_along):
            u, w = (il + 0.5) * dl, (iw + 0.5) * dw
            p = [a.top_centre[k] + (u - a.length / 2) * along[k] + w * down[k] for k in range(3)]
            t = math.hypot(u - hypo[0], w - hypo[1]) / a.vr
            rows.append((*p, m0, a.strike, a.dip, a.rake, t, a.rise_time))
    return rows


def case_text(a, nx, ny, nz):
    return f"""# Kinematic finite fault: {a.n_along} x {a.n_down} = {a.n_along * a.n_down} point sources, Mw {a.mw:g},
# strike {a.strike:g}, dip {a.dip:g}, rake {a.rake:g}, rupture at {a.vr:g} m/s, rise time {a.rise_time:g} s
# (written by tools/make_fault.py). LOH.1's layer over half-space.

[grid]
nx = {nx}
ny = {ny}
nz = {nz}
h = {a.h:g}

[time]
dt = {0.004 * a.h / 50:g}
steps = {int(round(a.duration / (0.004 * a.h / 50)))}

[boundaries]
pml_width = 10

[medium]
[[medium.layers]]
top = 0.0
vp = 4000.0
vs = 2000.0
rho = 2600.0
[[medium.layers]]
top = 1000.0
vp = 6000.0
vs = 3464.0
rho = 2700.0

[[faults]]
file = "fault.txt"
stf = "smooth_ramp"

""" + "".join(f"""[[stations]]
name = "S{i + 1:02d}"
position = [{x:g}, {y:g}, 0.0]

""" for i, (x, y) in enumerate(a.stations)) + f"""[output]
file = "finite_fault.h5"

[snapshots]
every = {max(1, int(round(0.25 / (0.004 * a.h / 50))))}
planes = ["z=0"]

[run]
blocks = [2, 2]
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--n-along", type=int, default=50)
    ap.add_argument("--n-down", type=int, default=25)
    ap.add_argument("--length", type=float, default=10000.0)
    ap.add_argument("--width", type=float, default=5000.0)
    ap.add_argument("--strike", type=float, default=30.0)
    ap.add_argument("--dip", type=float, default=70.0)
    ap.add_argument("--rake", type=float, default=90.0)
    ap.add_argument("--mw", type=float, default=6.0)
    ap.add_argument("--vr", type=float, default=2800.0, help="rupture speed, m/s")
    ap.add_argument("--rise-time", type=float, default=0.3)
    ap.add_argument("--h", type=float, default=100.0, help="grid spacing of the case, m")
    ap.add_argument("--duration", type=float, default=10.0, help="s")
    a = ap.parse_args()
    a.hypo_along, a.hypo_down = 0.25, 0.8
    size = (24000.0, 24000.0, 12000.0)
    a.top_centre = (size[0] / 2, size[1] / 2, 1500.0)
    a.stations = [(size[0] / 2 + dx, size[1] / 2 + dy) for dx, dy in
                  ((0, 0), (6000, 0), (-6000, 0), (0, 6000), (0, -6000), (5000, 5000), (-5000, -5000))]
    nx, ny, nz = (int(round(s / a.h)) + 1 for s in size)
    os.makedirs(a.out_dir, exist_ok=True)
    rows = fault_points(a)
    with open(os.path.join(a.out_dir, "fault.txt"), "w") as f:
        f.write(f"# {len(rows)} point sources written by tools/make_fault.py\n")
        f.write("x y z m0 strike dip rake rupture_time rise_time\n")
        for r in rows:
            f.write(" ".join(f"{v:.6g}" for v in r) + "\n")
    with open(os.path.join(a.out_dir, "finite_fault.toml"), "w") as f:
        f.write(case_text(a, nx, ny, nz))
    print(f"{len(rows)} points; grid {nx} x {ny} x {nz}")


if __name__ == "__main__":
    main()
