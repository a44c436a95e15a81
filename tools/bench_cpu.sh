#!/usr/bin/env bash
# CPU benchmark: runs a case over several block layouts and prints cell-updates per second.
# One warm-up run first (StarPU's bus calibration and performance models under STARPU_HOME).
#   tools/bench_cpu.sh [CASE] [STEPS] [LAYOUTS...]
#   tools/bench_cpu.sh inputs/benchmark.toml 5 1x1 2x2 4x4 8x8
# Environment: BIN (default build/ondes3d), SCHED (StarPU policy, default StarPU's), STARPU_NCPU.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
case_file=${1:-$here/inputs/benchmark.toml}
steps=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(1x1 2x1 2x2 4x4 8x8)
bin=${BIN:-$here/build/ondes3d}
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-$here/build/starpu-home-bench}
sched_flag=()
[ -z "${SCHED:-}" ] || sched_flag=(--sched "$SCHED")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # layout -> "wall cups tasks"
  local log
  log=$("$bin" run "$case_file" --steps "$steps" --blocks "$1" "${sched_flag[@]}" --output "$out/o.h5" 2>&1) || {
    echo "$log" >&2; return 1; }
  echo "$log" | sed -n 's/.*done in \([0-9.]*\) s: \([0-9.e+]*\) cell-updates\/s, \([0-9]*\) tasks per iteration.*/\1 \2 \3/p'
}

echo "# $(basename "$case_file"), $steps steps, $(nproc) cores, scheduler ${SCHED:-default}; warm-up run first"
run "${layouts[0]}" > /dev/null
printf '%-8s %10s %18s %14s\n' blocks wall_s cell_updates_per_s tasks_per_iter
for l in "${layouts[@]}"; do
  read -r wall cups tasks <<< "$(run "$l")"
  printf '%-8s %10s %18.4g %14s\n' "$l" "$wall" "$cups" "$tasks"
done
