#!/usr/bin/env python3
"""tools/code_shape.py, the product code's shape rules: on a tree made here it names a file of 401
lines, a C++ function of 61 lines, a CUDA kernel of 9 parameters and a Python function of 61 lines
(and not their neighbours at the limits: 400 lines, 60 lines, 8 parameters), then it passes the
source tree itself. Exits non-zero on the first mismatch."""
import os
import subprocess
import sys
import tempfile

source = sys.argv[1]
tool = os.path.join(source, "tools", "code_shape.py")


def shape(root):
    return subprocess.run([sys.executable, tool, root], capture_output=True, text=True)


def expect(cond, what, r):
    if not cond:
        sys.exit(f"FAILED: {what}\nstatus {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")


def cpp_function(name, lines):
    """A C++ function of `lines` lines, signature to closing brace."""
    return f"int {name}(int a) {{\n" + "  a += 1;\n" * (lines - 3) + "  return a;\n}\n"


def py_function(name, lines):
    return f"def {name}(a):\n" + "    a += 1\n" * (lines - 2) + "    return a\n"


with tempfile.TemporaryDirectory() as d:
    files = {
        "core/long.hpp": "// filler\n" * 401,
        "core/full.hpp": "// filler\n" * 400,
        "engine/f.cpp": cpp_function("too_long", 61) + cpp_function("at_limit", 60),
        "codelets/k.cu": ("__global__ void nine(int a, int b, int c, int d, int e, int f, int g, int h, int i) {}\n"
                          "__global__ void eight(int a, int b, int c, int d, int e, int f, int g, int h) {}\n"),
        "tools/t.py": py_function("too_long_py", 61) + "\n\n" + py_function("at_limit_py", 60),
        "tests/ignored.cpp": cpp_function("in_tests", 100),
    }
    for rel, text in files.items():
        os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(d, rel), "w") as f:
            f.write(text)
    r = shape(d)
    expect(r.returncode == 1, "a tree breaking the rules: exit status 1", r)
    for needle in ["core/long.hpp:1: 401 lines", "engine/f.cpp:1: too_long: 61 lines",
                   "codelets/k.cu:1: nine: 9 parameters", "tools/t.py:1: too_long_py: 61 lines",
                   "4 rules broken"]:
        expect(needle in r.stdout + r.stderr, f"names {needle!r}", r)
    for name in ["full.hpp", "at_limit", "eight", "in_tests"]:
        expect(name not in r.stdout, f"leaves {name} (within the rules, or not product code) alone", r)

r = shape(source)
expect(r.returncode == 0 and "every product file" in r.stdout, "the source tree keeps the rules", r)
print(r.stdout.strip())
