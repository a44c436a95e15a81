#!/usr/bin/env python3
"""LOH.1 self-convergence, small enough for the test suite: the near-field LOH.1 case
(tools/loh1.py --near: receivers 1-3 km from the epicentre, 3 s) at h = 200, 100 and 50 m. Each
halving of h must shrink the misfit between successive resolutions (low-passed at 2 Hz, the band
the coarsest grid resolves with 5 points per S wavelength) by a clear factor.

Run by ctest:  .venv/bin/python tests/test_loh1_convergence.py BINARY SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

BINARY, SOURCE = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import convergence  # noqa: E402  (tools/convergence.py)

SPACINGS = (200, 100, 50)
LOWPASS = 2.0
MIN_RATIO = 2.0

with tempfile.TemporaryDirectory() as tmp:
    runs = []
    for h in SPACINGS:
        case, out = os.path.join(tmp, f"near_h{h}.toml"), os.path.join(tmp, f"near_h{h}.h5")
        subprocess.run([sys.executable, os.path.join(SOURCE, "tools/loh1.py"), "--h", str(h), "--near",
                        "--output", out, "--out", case], check=True)
        r = subprocess.run([BINARY, "run", case], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"ondes3d failed on {case} ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        runs.append(convergence.load(out))
    misfits = [convergence.misfit(runs[i], runs[i + 1], LOWPASS)[0] for i in range(len(runs) - 1)]
    for (a, b), m in zip(zip(SPACINGS, SPACINGS[1:]), misfits):
        print(f"misfit h={a} vs h={b}: {m:.4f}")
    ratio = misfits[0] / misfits[1]
    print(f"ratio {ratio:.2f} (required > {MIN_RATIO})")
    peak = max(abs(r["v"]).max() for r in runs)
    if not peak > 1e-3:
        sys.exit(f"FAIL: no signal (peak {peak})")
    if not (misfits[1] < misfits[0] and ratio > MIN_RATIO):
        sys.exit("FAIL: the misfit does not shrink by the required factor when h halves")
print("ok")
