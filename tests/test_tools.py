#!/usr/bin/env python3
"""The Python tools as a user meets them without the right set-up: --help answers without
matplotlib, a folder that is not a sweep and a missing SimGrid build are one line each (no
traceback), and a Python without h5py, numpy or matplotlib is told which module is missing and
what installs it (tools/pydeps.py), exit status 2. Exits non-zero on the first mismatch."""
import os
import subprocess
import sys
import tempfile

source = sys.argv[1]
tools = os.path.join(source, "tools")


def run(*argv):
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=tempfile.gettempdir())


def without(modules, tool, *args):
    """`tool` run with `modules` made unimportable (as in a Python that lacks them)."""
    code = ("import runpy, sys\n"
            f"for m in {list(modules)!r}: sys.modules[m] = None\n"
            f"sys.argv = [{tool!r}, *{list(args)!r}]\n"
            f"sys.path.insert(0, {tools!r})\n"
            f"runpy.run_path({os.path.join(tools, tool)!r}, run_name='__main__')\n")
    return run("-c", code)


def expect(cond, what, r):
    if not cond:
        sys.exit(f"FAILED: {what}\nstatus {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")


r = without(["matplotlib"], "plot_sweep.py", "--help")
expect(r.returncode == 0 and "usage: plot_sweep.py" in r.stdout, "plot_sweep.py --help without matplotlib", r)

with tempfile.TemporaryDirectory() as empty:
    r = run(os.path.join(tools, "plot_sweep.py"), empty)
    expect(r.returncode != 0 and "holds no sweep.csv" in r.stderr and "Traceback" not in r.stderr,
           "plot_sweep.py on a folder without sweep.csv", r)
    r = run(os.path.join(tools, "sweep.py"), os.path.join(source, "inputs", "benchmark.toml"), "--out", empty,
            "--simulate", os.path.join(source, "inputs", "platforms", "h200") + ":h200x8",
            "--bin", os.path.join(empty, "no-such-build", "ondes3d"))
    expect(r.returncode != 0 and "no program at" in r.stderr and "SimGrid build" in r.stderr
           and "Traceback" not in r.stderr, "sweep.py --simulate without the SimGrid build", r)

for tool, args, modules in [("task_share.py", ["run.h5"], ["h5py"]),
                            ("plot_seismograms.py", ["run.h5"], ["h5py", "numpy"]),
                            ("plot_snapshots.py", ["run.h5"], ["matplotlib"]),
                            ("convergence.py", ["a.h5"], ["numpy"])]:
    r = without(modules, tool, *args)
    expect(r.returncode == 2 and "Traceback" not in r.stderr, f"{tool} without {modules}: status 2, no traceback", r)
    for m in modules:
        expect(f"{m} (Debian: apt-get install python3-{m}; pip: pip install {m})" in r.stderr,
               f"{tool} names {m} and what installs it", r)
# plot_seismograms.py against folders of Ondes3D's station files, one of each layout (IO.c's
# OutSeismogramsbis `step vx vy vz`; OutSeismograms `n x y z`, `steps dt`, then vx vy vz and six
# stresses), holding the same motion: drawn over each other, relative L2 0 in every panel. Needs
# the modules tools/setup.sh installs (said and skipped where this Python lacks them).
have = run("-c", "import h5py, numpy, matplotlib").returncode == 0
if not have:
    print(f"plot_seismograms.py on station files: skipped, {sys.executable} lacks h5py, numpy or matplotlib")
else:
    with tempfile.TemporaryDirectory() as d:
        steps = [(0.0, 1e-3, -2e-3), (1e-3, 2e-3, 0.0), (-1e-3, 0.5e-3, 1e-3), (0.0, 0.0, 2e-3)]
        for layout in ("step", "header"):
            os.makedirs(os.path.join(d, layout))
            for n in (1, 2):
                with open(os.path.join(d, layout, f"obs{n}.dat"), "w") as f:
                    if layout == "header":
                        f.write(f"{n} 100.0 200.0 0.0\n{len(steps)} 0.008\n")
                    for k, (e, no, up) in enumerate(steps, 1):
                        f.write(f"{k} {n * e} {n * no} {n * up}\n" if layout == "step" else
                                f"{n * e} {n * no} {n * up} 0 0 0 0 0 0\n")
        png = os.path.join(d, "obs.png")
        r = run(os.path.join(tools, "plot_seismograms.py"), os.path.join(d, "header"), "--compare",
                os.path.join(d, "step"), "--out", png)
        expect(r.returncode == 0 and "2 station(s), 4 samples" in r.stdout and os.path.getsize(png) > 0,
               "plot_seismograms.py over two folders of Ondes3D's station files", r)
        with open(os.path.join(d, "step", "obs2.dat"), "a") as f:
            f.write("5 1.0 2.0\n")
        r = run(os.path.join(tools, "plot_seismograms.py"), os.path.join(d, "step"), "--out", png)
        expect(r.returncode != 0 and "obs2.dat: line 5 is not 'step vx vy vz'" in r.stderr and "Traceback" not in r.stderr,
               "plot_seismograms.py names a bad line of a station file", r)
print("tools: every check passed")
