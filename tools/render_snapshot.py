#!/usr/bin/env pvpython
"""Renders one snapshot frame with ParaView from the run's XDMF file (Debian's python3-paraview;
without a display, run it under xvfb-run):

  xvfb-run -a pvpython tools/render_snapshot.py RUN_snapshots.xdmf --plane z=0 --time 2.0 --out frame.png

The plane's |v| (or --field vx/vy/vz, or the PGV map with --plane pgv) seen from above for
horizontal planes (x north up, y east right) and from the side for vertical ones.
"""
import argparse

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction,
                             GetScalarBar, Render, SaveScreenshot, Show, XDMFReader)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("xdmf")
    ap.add_argument("--plane", default="z=0", help="plane as in the case (z=0, y=4000, ...) or pgv")
    ap.add_argument("--time", type=float, default=None, help="seconds (default: the middle frame)")
    ap.add_argument("--field", default=None, help="norm (default), vx, vy, vz; pgv_horizontal or pgv_norm for pgv")
    ap.add_argument("--out", default="snapshot.png")
    ap.add_argument("--size", type=int, nargs=2, default=(900, 700))
    a = ap.parse_args()
    reader = XDMFReader(FileNames=[a.xdmf])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    t = a.time if a.time is not None else times[len(times) // 2]
    t = min(times, key=lambda x: abs(x - t))
    names = list(reader.GridStatus)
    planes = sorted({n.split(" it ")[0] for n in names if " it " in n}) + (["pgv"] if "pgv" in names else [])
    if a.plane not in planes:
        raise SystemExit(f"render_snapshot.py: no plane '{a.plane}' in {a.xdmf} (has {', '.join(planes)})")
    # Only the chosen plane's grids (the others would hide it when seen edge-on).
    reader.GridStatus = [n for n in names if n == a.plane or n.startswith(a.plane + " it ")]
    block = reader
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = list(a.size)
    view.ViewTime = t
    view.OrientationAxesVisibility = 1
    display = Show(block, view)
    display.SetRepresentationType("Surface")  # image data shows as an outline by default
    field = a.field or ("pgv_horizontal" if a.plane == "pgv" else "norm")
    ColorBy(display, ("POINTS", field))
    lut = GetColorTransferFunction(field)
    lut.ApplyPreset("Inferno (matplotlib)" if field in ("norm", "pgv_norm", "pgv_horizontal") else "Cool to Warm", True)
    display.RescaleTransferFunctionToDataRange(False, True)
    bar = GetScalarBar(lut, view)
    bar.Title = f"{field} (m/s)" + ("" if a.plane == "pgv" else f", t = {t:.2f} s")
    bar.ComponentTitle = ""
    display.SetScalarBarVisibility(view, True)
    axis = a.plane[0]
    view.ResetCamera()
    cam = view.GetActiveCamera()
    focal = cam.GetFocalPoint()
    if axis in ("z", "p"):  # from above (z points down): x north up the image
        cam.SetPosition(focal[0], focal[1], focal[2] - 1.0)
        cam.SetViewUp(1, 0, 0)
    else:  # from the side, depth down the image
        normal = (0, 1, 0) if axis == "y" else (1, 0, 0)
        cam.SetPosition(*(focal[i] - normal[i] for i in range(3)))
        cam.SetViewUp(0, 0, -1)
    view.ResetCamera()
    Render(view)
    SaveScreenshot(a.out, view, ImageResolution=list(a.size))
    print(f"wrote {a.out} ({a.plane}, {field}, t = {t:.3f} s)")


if __name__ == "__main__":
    main()
