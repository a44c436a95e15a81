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
print("tools: every check passed")
