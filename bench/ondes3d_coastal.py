#!/usr/bin/env python3
"""Writes a synthetic Ondes3D case in its own formats (tagged .prm, geological model, source
position and slip-rate history files, station file): a coastal model of NX x NY x NZ cells of DS
metres with land rising to the west, a sea over the eastern shelf and air above both, and a small
thrust fault of 10 x 10 points under the coast. For running `ondes3d run coastal.prm` at a realistic
size where the public Ondes3D sets lack their model or history files.

    bench/ondes3d_coastal.py OUTDIR [--nx 400 --ny 300 --nz 120 --ds 200 --steps 500]
"""
import argparse
import math
import os


def write_prm(a, x0, y0, z0, dt):
    with open(os.path.join(a.out, "coastal.prm"), "w") as f:
        f.write(f"""synthetic coastal case (bench/ondes3d_coastal.py)
<dt> {dt:.6f} </dt> <ds> {a.ds} </ds> <tmax> {a.steps} </tmax>
<xMin> 1 </xMin> <xMax> {a.nx} </xMax> <yMin> 1 </yMin> <yMax> {a.ny} </yMax> <zMin> 1 </zMin> <zMax> {a.nz} </zMax>
<fd0> 0.5 </fd0> <dir> ./output </dir>
<i0> 1 </i0> <j0> 1 </j0> <k0> 1 </k0>
<fstatMap> stations.map </fstatMap> <fsrcMap> fault.map </fsrcMap> <fsrcHist> fault.hist </fsrcHist>
<fgeo> coastal_geol.txt </fgeo> <x0> {x0} </x0> <y0> {y0} </y0> <z0> {z0} </z0>
<nlayer> 5 </nlayer>
<layer1> <name> out </name> <rho> 1730. </rho> <vp> 0.0 </vp> <vs> 0.0 </vs> </layer1>
<layer2> <name> eau </name> <rho> 1030. </rho> <vp> 1530. </vp> <vs> 0.0 </vs> </layer2>
<layer3> <name> sed </name> <rho> 2100. </rho> <vp> 2800. </vp> <vs> 1300. </vs> </layer3>
<layer4> <name> crust </name> <rho> 2700. </rho> <vp> 5800. </vp> <vs> 3300. </vs> </layer4>
<layer5> <name> deep </name> <rho> 3000. </rho> <vp> 6000. </vp> <vs> 3460. </vs> </layer5>
""")


def write_geology(a, x0, y0, z0):
    nx, ny, nz, ds = a.nx, a.ny, a.nz, a.ds
    sea_level_k = nz - 9  # the first cell at z >= 0

    # Ground surface (cell index): 6 cells above sea level in the west, falling to 8 below in the east.
    def ground(i):
        return sea_level_k + int(round(6 - 14 * i / nx))

    with open(os.path.join(a.out, "coastal_geol.txt"), "w") as f:
        f.write(f"nx {nx}\nny {ny}\nnz {nz}\nx0 {x0}\ny0 {y0}\nz0 {z0}\ndx {ds}\ndy {ds}\ndz {ds}\nnodata -9999\n")
        for k in range(1, nz + 1):
            for j in range(1, ny + 1):
                row = []
                for i in range(1, nx + 1):
                    g = ground(i)
                    if k > g:
                        row.append("out")  # air, or sea below z = 0 (the reader's rule)
                    elif k > g - 4:
                        row.append("sed")
                    elif k > nz // 3:
                        row.append("crust")
                    else:
                        row.append("deep")
                f.write(" ".join(row) + "\n")


def write_fault(a, x0, y0):
    """A 10 x 10 thrust fault, 2 km x 2 km, dipping 30 degrees under the coast, slip rates of 1 s; its
    points."""
    nx, ny, nz, ds = a.nx, a.ny, a.nz, a.ds
    n, step, dur = 10, 200.0, 1.2
    cx, cy, cz = x0 + nx * ds / 2, y0 + ny * ds / 2, -0.4 * (nz - 10) * ds  # 40% down below sea level
    pts = []
    for a_ in range(n):
        for b in range(n):
            pts.append((cx + (a_ - n / 2) * step * math.cos(math.radians(30)), cy + (b - n / 2) * step,
                        cz + (a_ - n / 2) * step * math.sin(math.radians(30))))
    with open(os.path.join(a.out, "fault.map"), "w") as f:
        f.write(f"{len(pts)}\n{cx} {cy} {cz}\n")
        for q, (x, y, z) in enumerate(pts):
            f.write(f"{q + 1} {x:.3f} {y:.3f} {z:.3f}\n")
    samples, dtb = 61, 0.02
    with open(os.path.join(a.out, "fault.hist"), "w") as f:
        f.write("synthetic slip-rate history\n(free line)\n")
        f.write(f"{step} {dtb}\n{samples}\n")
        for q, (x, y, z) in enumerate(pts):
            delay = math.hypot(x - cx, y - cy) / 2800.0  # rupture at 2.8 km/s from the centre
            f.write(f"{q + 1} 0. 30. 90.\n")
            f.write(" ".join(f"{max(0.0, math.sin(math.pi * (t * dtb - delay) / dur)) if 0 <= t * dtb - delay <= dur else 0.0:.5e}"
                             for t in range(samples)) + "\n")
    return pts


def write_stations(a, x0, y0):
    with open(os.path.join(a.out, "stations.map"), "w") as f:
        sts = [(x0 + a.nx * a.ds * fx, y0 + a.ny * a.ds * fy) for fx in (0.2, 0.4, 0.6, 0.8) for fy in (0.3, 0.5, 0.7)]
        f.write(f"{len(sts)}\n")
        for q, (x, y) in enumerate(sts):
            f.write(f"{q + 1} {x:.1f} {y:.1f}\n")
    return sts


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--nx", type=int, default=400)
    p.add_argument("--ny", type=int, default=300)
    p.add_argument("--nz", type=int, default=120)
    p.add_argument("--ds", type=float, default=200.0)
    p.add_argument("--steps", type=int, default=500)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    x0, y0, z0 = 900000.0, 1800000.0, -(a.nz - 10) * a.ds  # sea level 10 cells under the top
    dt = 0.4 * a.ds / (6000.0 * math.sqrt(3) * (9 / 8 + 1 / 24))  # 40% of the CFL limit at vp 6000
    write_prm(a, x0, y0, z0, dt)
    write_geology(a, x0, y0, z0)
    pts = write_fault(a, x0, y0)
    sts = write_stations(a, x0, y0)
    print(f"{a.out}/coastal.prm: {a.nx} x {a.ny} x {a.nz} cells of {a.ds} m, {a.steps} steps of {dt:.5f} s, "
          f"{len(pts)} source points, {len(sts)} stations")


if __name__ == "__main__":
    main()
