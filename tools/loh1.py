#!/usr/bin/env python3
"""Writes SCEC LOH.1 cases (layer over half-space, buried Mxy double couple) at a given spacing.

LOH.1 (Day et al., SCEC/PEER Lifelines 1A01): a 1000 m layer (vp 4000, vs 2000, rho 2600 kg/m3)
over a half-space (vp 6000, vs 3464, rho 2700), a point source Mxy = M0 = 1e18 N m at 2000 m depth
whose moment grows as M0 (1 - (1 + t/T) exp(-t/T)), T = 0.1 s, and receivers at the surface. The
ten receivers R01..R10 lie at 1..10 km from the epicentre on the azimuth of the benchmark's
receiver (6 km north, 8 km east), R10 being that receiver.

Every resolution has the same physical interior around the source and the same PML thickness in
metres outside it (--pml-thickness, cells = thickness / h): the same continuous problem, so that
runs at successive spacings converge to one solution and compare trace by trace
(tools/convergence.py). A PML of fixed width in cells would be thinner in metres at each
refinement and reflect differently, which the misfit between resolutions would pick up.

  tools/loh1.py --h 50 --out inputs/loh1/loh1.toml
  tools/loh1.py --h 100 --near --out /tmp/near_h100.toml   # 3 s, receivers R01..R03, small box
"""
import argparse
import math
import sys

LAYER = dict(vp=4000.0, vs=2000.0, rho=2600.0)
HALF_SPACE = dict(vp=6000.0, vs=3464.0, rho=2700.0)
M0, DEPTH, RISE = 1e18, 2000.0, 0.1
AZIMUTH = (0.6, 0.8)  # unit vector towards the benchmark's receiver at (6000, 8000) m


def case_text(h, near, duration, pml, blocks, output):
    stations = 3 if near else 10
    # Interior (metres, relative to the epicentre): the receivers plus a margin on every side.
    margin = 1500.0 if near else 2000.0
    far = 1000.0 * stations
    x0, x1 = -margin, AZIMUTH[0] * far + margin
    y0, y1 = -margin, AZIMUTH[1] * far + margin
    depth = 4000.0 if near else 8000.0
    nx = int(math.ceil((x1 - x0) / h)) + 2 * pml + 1
    ny = int(math.ceil((y1 - y0) / h)) + 2 * pml + 1
    nz = int(math.ceil(depth / h)) + pml + 1
    ox, oy = pml * h - x0, pml * h - y0  # grid position of the epicentre
    dt = 0.004 * h / 50.0  # 0.97 of the CFL limit at every h
    steps = int(round(duration / dt))
    lines = [
        f"# SCEC LOH.1 at h = {h:g} m, written by tools/loh1.py{' (near field)' if near else ''}.",
        f"# Epicentre at x = {ox:g}, y = {oy:g} m of the grid; {nx} x {ny} x {nz} = {nx * ny * nz / 1e6:.2f} M cells.",
        "",
        "[grid]",
        f"nx = {nx}", f"ny = {ny}", f"nz = {nz}", f"h = {h:g}",
        "",
        "[time]",
        f"dt = {dt:g}", f"steps = {steps}",
        "",
        "[boundaries]",
        "free_surface = true", f"pml_width = {pml}",
        "",
        "[medium]",
        "[[medium.layers]]",
        f"top = 0.0\nvp = {LAYER['vp']:g}\nvs = {LAYER['vs']:g}\nrho = {LAYER['rho']:g}",
        "[[medium.layers]]",
        f"top = 1000.0\nvp = {HALF_SPACE['vp']:g}\nvs = {HALF_SPACE['vs']:g}\nrho = {HALF_SPACE['rho']:g}",
        "",
        "[[sources]]",
        'type = "moment"',
        f"position = [{ox:g}, {oy:g}, {DEPTH:g}]",
        f"moment = [0.0, 0.0, 0.0, {M0:g}, 0.0, 0.0]  # Mxx Myy Mzz Mxy Mxz Myz, N m",
        f'stf = {{ type = "smooth_ramp", rise_time = {RISE:g} }}',
        "",
    ]
    for k in range(1, stations + 1):
        d = 1000.0 * k
        lines += ["[[stations]]", f'name = "R{k:02d}"',
                  f"position = [{ox + AZIMUTH[0] * d:g}, {oy + AZIMUTH[1] * d:g}, 0.0]  # {d / 1000:g} km", ""]
    lines += ["[output]", f'file = "{output}"', "asdf = true", ""]
    lines += ["[run]", f"blocks = [{blocks[0]}, {blocks[1]}]", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--h", type=float, required=True, help="grid spacing, metres")
    ap.add_argument("--near", action="store_true", help="near field: receivers R01-R03, small box, 3 s")
    ap.add_argument("--duration", type=float, help="seconds (default 9, near field 3)")
    ap.add_argument("--pml-thickness", type=float, default=1200.0, help="PML thickness, m (default 1200)")
    ap.add_argument("--blocks", type=int, nargs=2, default=(2, 2), metavar=("NBX", "NBY"))
    ap.add_argument("--output", default="loh1.h5", help="the case's output file")
    ap.add_argument("--out", required=True, help="case file to write ('-': standard output)")
    a = ap.parse_args()
    if not a.h > 0:
        sys.exit("loh1.py: --h must be positive")
    pml = max(5, int(round(a.pml_thickness / a.h)))
    text = case_text(a.h, a.near, a.duration or (3.0 if a.near else 9.0), pml, a.blocks, a.output)
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
