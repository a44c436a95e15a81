#!/usr/bin/env python3
"""The CPU peer benchmark: Devito's own 3D elastic velocity-stress operator
(examples/seismic/elastic: staggered grid, space order 4, leapfrog, absorbing sponge) against
`ondes3d run` on the same grid (cells including the absorbing layers), the same number of steps
and the same cores (ondes3d's CPU workers as it counts them itself: one core fewer from 8 cores on,
left to the thread that submits the tasks), CPU workers only. Prints both throughputs (cell-updates per second: grid points
x time steps / time-loop seconds) and the ratio, and writes them as CSV.

  bench/peer_devito.sh [--cores N] [--cases inputs/benchmark.toml:60 inputs/absorbing.toml:200] [--out F.csv]
                      [--repeat N] [--devito-media constant|fields]

Devito runs under the interpreter of bench/peer_devito.sh's virtual environment; ondes3d is the
build's. Devito's time is the sum of its operator's sections (the time loop, compilation excluded);
ondes3d's is the time loop of the whole run ("over all" in its log), the start-up included.
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib


def grid_of(case):
    with open(case, "rb") as f:
        c = tomllib.load(f)
    g, b = c["grid"], c.get("boundaries", {})
    return g["nx"], g["ny"], g["nz"], g["h"], b.get("pml_width", 10)


def default_blocks(cores):
    """Layouts tried when none is given: one block per core cut along y only (the x faces' ghost
    copies are strided, the y faces' contiguous), and a squarer one."""
    bx = math.ceil(math.sqrt(cores))
    layouts = [f"1x{cores}", f"{bx}x{math.ceil(cores / bx)}"]
    return ",".join(dict.fromkeys(layouts))


def run_devito(nx, ny, nz, h, width, steps, cores, media="constant"):
    """Devito's elastic operator on nx x ny x nz points, `width` of them absorbing on each face.
    media "constant": vp, vs, rho as scalar Constants (the example's own choice for a homogeneous
    model: no material array is read); "fields": as Functions over the grid, as a heterogeneous
    model needs them (ondes3d reads its material arrays, rho, lambda and 1/mu, where the medium varies
    within a plane; a homogeneous or layered medium's once a plane)."""
    code = f"""
import numpy as np
from examples.seismic.elastic.elastic_example import elastic_setup
shape = ({nx - 2 * width}, {ny - 2 * width}, {nz - 2 * width})
s = elastic_setup(shape=shape, spacing=({h}, {h}, {h}), tn=1.0, space_order=4, nbl={width}, constant={media == "constant"})
dt = s.model.critical_dt
s = elastic_setup(shape=shape, spacing=({h}, {h}, {h}), tn={steps} * dt, space_order=4, nbl={width}, constant={media == "constant"})
rec1, rec2, v, tau, summary = s.forward()
points = int(np.prod(s.model.grid.shape))
seconds = sum(e.time for e in summary.values())
print("DEVITO", points, s.geometry.time_axis.num - 1, seconds)
"""
    env = dict(os.environ, DEVITO_LANGUAGE="openmp", OMP_NUM_THREADS=str(cores), DEVITO_LOGGING="WARNING")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    m = re.search(r"DEVITO (\d+) (\d+) ([0-9.eE+-]+)", out.stdout)
    if out.returncode != 0 or not m:
        sys.exit(f"Devito failed:\n{out.stdout}\n{out.stderr}")
    points, nt, seconds = int(m[1]), int(m[2]), float(m[3])
    return points, nt, seconds, points * nt / seconds


def cpu_workers(cores):
    """ondes3d's own choice on a machine of `cores` cores (engine/runtime.hpp: cores_for_submission):
    a worker on every core but one, from 8 cores on, left to the thread that submits the tasks."""
    return cores - (1 if cores >= 8 else 0)


def run_ondes3d(binary, case, steps, cores, blocks):
    env = dict(os.environ, STARPU_NCPU=str(cpu_workers(cores)), STARPU_NCUDA="0")
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run([binary, "run", case, "--steps", str(steps), "--blocks", blocks,
                              "--output", os.path.join(d, "o.h5")], env=env, capture_output=True, text=True)
    log = out.stdout + out.stderr
    m = re.search(r"done in ([0-9.]+) s: ([0-9.e+]+) cell-updates/s", log)
    overall = re.search(r"([0-9.e+]+) cell-updates/s over all", log)
    if out.returncode != 0 or not m:
        sys.exit(f"ondes3d failed:\n{log}")
    return float(m[1]), float(overall[1] if overall else m[2])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(here, "..", "build", "ondes3d"))
    p.add_argument("--cores", type=int, default=os.cpu_count())
    p.add_argument("--cases", nargs="+", default=[os.path.join(here, "..", "inputs", "benchmark.toml") + ":60",
                                                  os.path.join(here, "..", "inputs", "absorbing.toml") + ":200"],
                   help="CASE:STEPS[:BLOCKS[,BLOCKS...]] (default: 1xCORES and a squarer layout, one block per core)")
    p.add_argument("--out", help="CSV of the results")
    p.add_argument("--repeat", type=int, default=1,
                   help="run Devito and each ondes3d layout N times, alternately, and report the medians "
                        "(the GPU host's throughputs vary by 10-20%% from run to run)")
    p.add_argument("--devito-media", choices=["constant", "fields"], default="constant",
                   help="Devito's model parameters: scalar constants (default) or grid functions")
    a = p.parse_args()
    rows = []
    print(f"# Devito's model parameters: {a.devito_media}; medians of {max(1, a.repeat)} alternated run(s); "
          f"ondes3d: {cpu_workers(a.cores)} CPU workers on {a.cores} cores")
    print(f"{'case':<18} {'grid':<13} {'steps':>5} {'cores':>5} {'blocks':>6} {'Devito':>11} {'ondes3d':>11} {'ratio':>6}")
    for spec in a.cases:
        case, steps, *rest = spec.split(":")
        steps = int(steps)
        layouts = (rest[0] if rest else default_blocks(a.cores)).split(",")
        nx, ny, nz, h, width = grid_of(case)
        devitos, ondes_runs = [], {b: [] for b in layouts}
        for _ in range(max(1, a.repeat)):  # alternately, so that a slow spell of the host hits both
            devitos.append(run_devito(nx, ny, nz, h, width, steps, a.cores, a.devito_media))
            for blocks in layouts:
                ondes_runs[blocks].append(run_ondes3d(a.bin, case, steps, a.cores, blocks))
        _, nt, dseconds, devito = sorted(devitos, key=lambda r: r[3])[len(devitos) // 2]
        for blocks in layouts:
            oseconds, ondes = sorted(ondes_runs[blocks], key=lambda r: r[1])[len(ondes_runs[blocks]) // 2]
            row = dict(case=os.path.basename(case), nx=nx, ny=ny, nz=nz, pml=width, steps=steps, devito_steps=nt,
                       devito_media=a.devito_media, runs=max(1, a.repeat),
                       devito_all=" ".join(f"{r[3] / 1e6:.1f}" for r in devitos),
                       ondes3d_all=" ".join(f"{r[1] / 1e6:.1f}" for r in ondes_runs[blocks]),
                       cores=a.cores, blocks=blocks, devito_cups=devito, devito_seconds=dseconds, ondes3d_cups=ondes,
                       ondes3d_seconds=oseconds, ratio=ondes / devito)
            rows.append(row)
            print(f"{row['case']:<18} {f'{nx}x{ny}x{nz}':<13} {steps:>5} {a.cores:>5} {blocks:>6} "
                  f"{devito / 1e6:>9.1f} M {ondes / 1e6:>9.1f} M {ondes / devito:>5.2f}x"
                  + (f"   (Devito {row['devito_all']}; ondes3d {row['ondes3d_all']})" if a.repeat > 1 else ""),
                  flush=True)
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
