#!/usr/bin/env pvpython
"""Snapshots as ParaView sees them: the XDMF file opens in ParaView's reader (pvpython, Debian's
python3-paraview), with one time step per frame at the right times, each plane where the case put
it, and values equal to the HDF5 datasets; the PGV map is at least every surface frame's |v|.

Run by ctest:  pvpython tests/test_xdmf_paraview.py BINARY SOURCE_DIR
Exits non-zero on the first failed check.
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview.simple import XDMFReader
from vtkmodules.util.numpy_support import vtk_to_numpy

BINARY, SOURCE = sys.argv[1], sys.argv[2]
EVERY, STEPS = 20, 120
PLANES = {"z=0": (2, 0.0), "y=4000": (1, 4000.0), "x=3000": (0, 3000.0)}
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def h5_frame(f, group, it, name):
    return f[f"/{group}/{it:08d}/{name}"][...]


with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(SOURCE, "inputs/loh1/loh1_h200.toml")) as f:
        text = f.read()
    text = re.sub(r"steps = \d+", f"steps = {STEPS}", text)
    text = re.sub(r'\[output\][^\[]*', '[output]\nfile = "run.h5"\n\n', text)
    text += f"\n[snapshots]\nevery = {EVERY}\nplanes = [{', '.join(repr(p).replace(chr(39), chr(34)) for p in PLANES)}]\n"
    case = os.path.join(tmp, "case.toml")
    with open(case, "w") as f:
        f.write(text)
    r = subprocess.run([BINARY, "run", case], cwd=tmp, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ondes3d failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    h5path, xdmf = os.path.join(tmp, "run_snapshots.h5"), os.path.join(tmp, "run_snapshots.xdmf")
    expect(os.path.exists(xdmf) and not os.path.exists(h5path + ".partial"), "snapshot file and XDMF in place")

    reader = XDMFReader(FileNames=[xdmf])
    reader.UpdatePipelineInformation()
    with h5py.File(h5path, "r") as f:
        dt, h = float(f.attrs["dt"]), float(f.attrs["h"])
        iterations = list(range(EVERY - 1, STEPS, EVERY))
        times = list(reader.TimestepValues)
        expect(np.allclose(times, [(it + 0.5) * dt for it in iterations]),
               f"{len(times)} time steps at (it + 1/2) dt, it = {iterations}")
        pgv = f["/pgv/norm"][0]
        for it, t in zip(iterations, times):
            reader.UpdatePipeline(t)
            data = sm.Fetch(reader)
            blocks = {data.GetMetaData(b).Get(data.NAME()): data.GetBlock(b) for b in range(data.GetNumberOfBlocks())}
            expect(set(blocks) == set(PLANES) | {"pgv"}, f"t = {t:.3f}: blocks {sorted(blocks)}")
            for name, (axis, at) in PLANES.items():
                img = blocks[name]
                bounds = img.GetBounds()
                snapped = round(at / h) * h
                expect(bounds[2 * axis] == bounds[2 * axis + 1] == snapped, f"{name}: plane at {snapped} m ({bounds})")
                group = f"{'xyz'[axis]}{int(round(at / h))}"
                for arr in ("vx", "vy", "vz", "norm"):
                    pv = vtk_to_numpy(img.GetPointData().GetArray(arr))
                    ref = h5_frame(f, group, it, arr).ravel()  # x fastest, as VTK's image data
                    expect(pv.shape == ref.shape and np.array_equal(pv, ref), f"{name} {arr} at it {it}: ParaView = HDF5")
                if name == "z=0":
                    surface = h5_frame(f, group, it, "norm")[0]
                    expect(np.all(pgv >= surface * (1 - 1e-6)), f"PGV >= |v| of the surface frame at it {it}")
                    expect(surface.max() > 0, f"surface frame at it {it} is not empty")
        pv_pgv = vtk_to_numpy(blocks["pgv"].GetPointData().GetArray("pgv_norm"))
        expect(np.array_equal(pv_pgv, pgv.ravel()), "PGV map: ParaView = HDF5")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all checks passed")
