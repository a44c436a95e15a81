#!/usr/bin/env python3
"""The product code's shape (docs/design.md, Layers): no file over 400 lines, no function over 60
lines or with more than 8 parameters. Product code: the layers' folders, bench/ and tools/ (tests/
is not). A function's lines run from its signature's first line to its closing one, as lizard
(the C, C++, CUDA and Python analyser: https://github.com/terryyin/lizard) counts a function's
length; shell scripts are held to the file rule only.

    tools/code_shape.py [ROOT]        every offender, a line each; exit 1 if any, 0 if none

lizard comes from the package index into .venv (tools/setup.sh); run with .venv/bin/python.
"""
import os
import sys

from pydeps import require

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 8
FOLDERS = ["core", "physics", "io", "codelets", "partition", "perfmodels", "plan", "tasks", "engine",
           "app", "bench", "tools"]
SOURCES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".py")
SCRIPTS = (".sh",)


def product_files(root):
    for folder in FOLDERS:
        for here, dirs, files in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCES + SCRIPTS):
                    yield os.path.join(here, name)


def offences(root, lizard):
    """(path, line, what) of every rule broken under root."""
    found = []
    for path in product_files(root):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = sum(1 for _ in f)
        if lines > MAX_FILE_LINES:
            found.append((rel, 1, f"{lines} lines (at most {MAX_FILE_LINES} a file)"))
        if not path.endswith(SOURCES):
            continue
        for fn in lizard.analyze_file(path).function_list:
            if fn.length > MAX_FUNCTION_LINES:
                found.append((rel, fn.start_line,
                              f"{fn.name}: {fn.length} lines (at most {MAX_FUNCTION_LINES} a function)"))
            if fn.parameter_count > MAX_PARAMETERS:
                found.append((rel, fn.start_line,
                              f"{fn.name}: {fn.parameter_count} parameters (at most {MAX_PARAMETERS})"))
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    lizard = require("lizard")
    found = offences(root, lizard)
    for rel, line, what in found:
        print(f"{rel}:{line}: {what}")
    if found:
        sys.exit(f"code_shape: {len(found)} rule{'s' if len(found) > 1 else ''} broken under {root}")
    print(f"code_shape: every product file of {root} within {MAX_FILE_LINES} lines, every function within "
          f"{MAX_FUNCTION_LINES} lines and {MAX_PARAMETERS} parameters")


if __name__ == "__main__":
    main()
