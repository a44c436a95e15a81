#!/usr/bin/env bash
# Runs the whole test suite (GoogleTest through ctest) on the build made by tools/setup.sh,
# rebuilding first if sources changed. Tests run one at a time: each uses every core via StarPU.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$here/build}
[ -f "$build/CMakeCache.txt" ] || { echo "no build in $build: run tools/setup.sh first" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure --timeout 600 "$@"
