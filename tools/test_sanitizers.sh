#!/usr/bin/env bash
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer (CMake preset asan,
# CPU only, in build-asan/). Any report fails the test that triggers it. Takes ~15 minutes on 2 cores.
#   tools/test_sanitizers.sh [CTEST ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cmake --preset asan > /dev/null
cmake --build --preset asan -j "$(nproc)"
# StarPU, hwloc and Open MPI are not instrumented: their start-up allocations are suppressed
# (tools/lsan.supp); fast_unwind_on_malloc=0 lets the stacks reach their frames through Open MPI's
# plugins (unloaded before the leak report, their own frames are nameless). detect_odr_violation=0:
# libstarpu and libstarpumpi both define a few globals.
export ASAN_OPTIONS=abort_on_error=1:detect_odr_violation=0:detect_leaks=1:fast_unwind_on_malloc=0
export LSAN_OPTIONS=suppressions=$here/tools/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# hwloc's PCI plugin (libpciaccess) leaves 1 KiB allocated and is unloaded before LeakSanitizer
# runs, so its frames cannot be named in a suppression: keep it out of these runs.
export HWLOC_PLUGINS_BLACKLIST=hwloc_pci
ctest --preset asan -j "$(nproc)" --no-tests=error "$@"
