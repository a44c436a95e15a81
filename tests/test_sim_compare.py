#!/usr/bin/env python3
"""tools/sim_compare.py on rates whose verdicts are known by hand: which points lie within the
tolerance of the measured median, which pairs of policies the measurements tell apart (two runs or
more each, ranges apart), whether the simulation orders them alike, and bad lines refused with the
file and line. Exits non-zero on the first mismatch."""
import os
import subprocess
import sys
import tempfile

tool = os.path.join(sys.argv[1], "tools", "sim_compare.py")


def compare(text, *options, pooled=()):
    """The tool on `text` (and on each text of `pooled`, as further files); its result and text's file."""
    names = []
    for t in (text, *pooled):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(t)
        names.append(f.name)
    r = subprocess.run([sys.executable, tool, *names, *options], capture_output=True, text=True)
    for name in names:
        os.unlink(name)
    return r, names[0]


def expect(cond, what, output):
    if not cond:
        sys.exit(f"FAILED: {what}\n{output}")


# 2x2: a measured 100, 102, 98 (median 100), simulated 105 twice: within 10%, identical.
#      b measured 80, 81, 79 (median 80), simulated 95 and 95.5: 1.188, outside; the two differ.
#      a and b apart (98 > 81), the simulation keeps a > b? 105 > 95: kept.
# 4x4: a measured 50, 51 (median 50.5), simulated 49; b measured 52, 53, simulated 49:
#      apart (52 > 51), b > a measured, tied in the simulation; c one run only: never apart.
# 1x1: a measured 100, 100.5, b 101, 101.5: ranges apart (101 > 100.5) but medians 1% apart, under
#      the 2% noise: no ranking (with --noise 0: b > a, kept by 95 > 90). a outside 10% (0.898), b within (0.938).
# 8x8: a measured 60, 61, b 50, 51: apart by 20%; simulated 55.2 against 55.0 (0.36%, under the 0.5%
#      tie): tied, not kept (with --sim-tie 0: kept); both within 10% (0.912, 1.089).
rates = """# header
2x2 a measured 100 102 98
2x2 a simulated 105 105
2x2 b measured 80 81 79
2x2 b simulated 95 95.5
4x4 a measured 50 51
4x4 a simulated 49 49
4x4 b measured 52 53
4x4 b simulated 49 49
4x4 c measured 10
4x4 c simulated 10 10
1x1 a measured 100 100.5
1x1 a simulated 90 90
1x1 b measured 101 101.5
1x1 b simulated 95 95
8x8 a measured 60 61
8x8 a simulated 55.2 55.2
8x8 b measured 50 51
8x8 b simulated 55 55
"""
r, _ = compare(rates)
out = r.stdout
expect(r.returncode == 0, "the tool runs", out + r.stderr)
expect("within 10% of the measured median: 7 of 9" in out, "7 of 9 points within 10%", out)
line = next(l for l in out.splitlines() if l.startswith("2x2      b"))
expect("1.188" in line and line.rstrip().endswith("differ"), "2x2 b: 1.188, simulations differ", line)
line = next(l for l in out.splitlines() if l.startswith("2x2      a"))
expect("100" in line and line.rstrip().endswith("identical"), "2x2 a: median 100, identical", line)
expect("a>b kept" in out, "2x2: a > b kept", out)
expect("b>a tied" in out, "4x4: b > a tied in the simulation", out)
expect("c>" not in out and ">c" not in out, "a single run is never apart", out)
expect("pairs the measurements tell apart: 3; ordered alike by the simulation: 1, tied: 2, reversed: 0 "
       "(ranges apart but medians within 2%: 1)" in out, "3 pairs, 1 kept, 2 tied; 1 within the noise", out)
line = next(l for l in out.splitlines() if l.startswith("8x8 ") and "|" in l)
expect("a>b tied" in line, "8x8: simulated 0.36% apart is a tie", line)
line = next(l for l in out.splitlines() if l.startswith("1x1 ") and "|" in l)
expect("none (noise)" in line, "1x1: within the noise", line)

r, _ = compare(rates, "--noise", "0")
line = next(l for l in r.stdout.splitlines() if l.startswith("1x1 ") and "|" in l)
expect("b>a kept" in line, "1x1 with --noise 0: b > a kept", r.stdout)
expect("pairs the measurements tell apart: 4; ordered alike by the simulation: 2" in r.stdout, "4 pairs, 2 kept",
       r.stdout)

r, _ = compare(rates, "--sim-tie", "0")
line = next(l for l in r.stdout.splitlines() if l.startswith("8x8 ") and "|" in l)
expect("a>b kept" in line, "8x8 with --sim-tie 0: a > b kept", r.stdout)

# Pooled: a second file's run of 4x4 a (53) reaches into b's range (52-53): no longer apart. Files
# of other steps are refused.
first = "# x, 100 steps; calibrated\n" + rates
r, _ = compare(first, pooled=["# y, 100 steps\n4x4 a measured 53\n"])
line = next(l for l in r.stdout.splitlines() if l.startswith("4x4 ") and "|" in l)
expect(r.returncode == 0 and "none (noise)" in line, "4x4 pooled with a run of 53: within the noise", r.stdout + r.stderr)
line = next(l for l in r.stdout.splitlines() if l.startswith("4x4      a"))
expect("50-53" in line and " 3 " in line, "4x4 a pooled: three runs, 50-53", line)
r, _ = compare(first, pooled=["# y, 300 steps\n4x4 a measured 53\n"])
expect(r.returncode != 0 and "different steps" in r.stderr, "files of 100 and 300 steps refused", r.stdout + r.stderr)

r, name = compare("2x2 a measured 1\n2x2 a guessed 2\n")
expect(r.returncode != 0 and f"{name}:2:" in r.stderr, "a bad line refused with file and line", r.stdout + r.stderr)
print("sim_compare: verdicts as computed by hand")
