#!/usr/bin/env bash
# Strong and weak scaling over MPI ranks (StarPU-MPI), on this machine or a cluster allocation.
# Prints cell-updates per second, parallel efficiency, and the bytes each rank sent per iteration
# as StarPU-MPI counted them (STARPU_COMM_STATS) against what the cut block faces predict.
#   tools/scale_mpi.sh [RANKS...]            (default: 1 2 4)
# Environment: BIN (default build/ondes3d), MPIRUN (default "mpirun --oversubscribe --bind-to none", plus
# --allow-run-as-root as root), NX NY NZ (strong-scaling grid, 4 x 4 blocks; default 256 256 64;
# in the weak study each rank holds NX/2 x NY/2 x NZ cells in 2 x 2 blocks), STEPS (default 60).
# Ranks on one node share its cores (ondes3d gives each an equal share unless STARPU_NCPU is set).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ranks_list=("$@")
[ ${#ranks_list[@]} -gt 0 ] || ranks_list=(1 2 4)
bin=${BIN:-$here/build/ondes3d}
mpirun=${MPIRUN:-mpirun --oversubscribe --bind-to none}
[ "$(id -u)" != 0 ] || [ -n "${MPIRUN:-}" ] || mpirun="$mpirun --allow-run-as-root"
nx=${NX:-256} ny=${NY:-256} nz=${NZ:-64} steps=${STEPS:-60}
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-$here/build/starpu-home-bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

write_case() {  # nx ny nz -> case file path
  local f="$out/case_$1x$2x$3.toml"
  cat > "$f" <<TOML
[grid]
nx = $1
ny = $2
nz = $3
h = 100.0
[time]
dt = 0.008
steps = $steps
[boundaries]
free_surface = true
pml_width = 10
[medium]
vp = 4000.0
vs = 2310.0
rho = 2600.0
[[sources]]
type = "moment"
position = [$(( $1 * 50 )).0, $(( $2 * 50 )).0, 1000.0]
strike = 30.0
dip = 60.0
rake = 90.0
m0 = 1.0e15
stf = { type = "gaussian", f0 = 2.0, t0 = 0.6 }
[[stations]]
name = "S1"
position = [$(( $1 * 30 )).0, $(( $2 * 70 )).0, 0.0]
[output]
file = "$out/o.h5"
TOML
  echo "$f"
}

# ranks case blocks -> "cups sent_bytes_per_iteration_max predicted_max"
run() {
  local r=$1 case_file=$2 blocks=$3 log cups sent predicted
  if [ "$r" = 0 ]; then
    log=$("$bin" run "$case_file" --blocks "$blocks" 2>&1) || { echo "$log" >&2; return 1; }
  else
    log=$(STARPU_COMM_STATS=1 $mpirun -np "$r" "$bin" run "$case_file" --blocks "$blocks" 2>&1) || {
      echo "$log" >&2; return 1; }
  fi
  cups=$(echo "$log" | sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates\/s.*/\1/p')
  # StarPU-MPI's counters, one "[starpu_comm_stats][RANK] TOTAL:<tab>BYTES B ..." line per rank;
  # they include the end-of-run gather of the traces (a few KiB).
  sent=$(echo "$log" | awk -F'\t' '/starpu_comm_stats.*TOTAL:/ { b = $2 + 0; if (b > m) m = b } END { printf "%.0f", m }')
  predicted=$("$bin" check "$case_file" --blocks "$blocks" --ranks "$([ "$r" = 0 ] && echo 1 || echo "$r")" |
              sed -n 's/.*bytes sent per iteration by rank: //p' | tr ' ' '\n' | sort -n | tail -1)
  echo "$cups ${sent:-0} ${predicted:-0}"
}

header() {
  printf '%-6s %-14s %-7s %16s %10s %16s %16s\n' ranks grid blocks cell_updates/s efficiency \
    "sent/iter(max)" "predicted(max)"
}
row() {  # ranks grid blocks cups base_cups ideal_factor sent predicted
  local eff sent_it
  eff=$(awk -v c="$4" -v b="$5" -v f="$6" 'BEGIN { printf "%.2f", c / (b * f) }')
  sent_it=$(awk -v s="$7" -v n="$steps" 'BEGIN { printf "%.0f", s / n }')
  printf '%-6s %-14s %-7s %16.4g %10s %16s %16s\n' "$1" "$2" "$3" "$4" "$eff" "$sent_it" "${8:-0}"
}

echo "# $(nproc) cores; $steps steps; 0 ranks = one process without MPI (the baseline)"
echo "# strong scaling: ${nx}x${ny}x${nz}, 4x4 blocks; efficiency = speed-up / ranks"
strong_case=$(write_case "$nx" "$ny" "$nz")
run 0 "$strong_case" 4x4 > /dev/null  # warm-up (bus calibration, page cache)
header
read -r base _ _ <<< "$(run 0 "$strong_case" 4x4)"
row 0 "${nx}x${ny}x${nz}" 4x4 "$base" "$base" 1 0 0
for r in "${ranks_list[@]}"; do
  read -r cups sent pred <<< "$(run "$r" "$strong_case" 4x4)"
  row "$r" "${nx}x${ny}x${nz}" 4x4 "$cups" "$base" "$r" "$sent" "$pred"
done

echo "# weak scaling: $((nx / 2))x$((ny / 2))x${nz} cells and 2x2 blocks per rank; efficiency = rate / (ranks x 1-rank rate)"
header
wbase=""
for r in "${ranks_list[@]}"; do
  px=1 py=1  # the rank grid the tiles mapping picks for a square domain
  case $r in 1) ;; 2) px=2 ;; 4) px=2 py=2 ;; 8) px=4 py=2 ;; *) px=$r ;; esac
  gx=$((nx / 2 * px)) gy=$((ny / 2 * py))
  c=$(write_case "$gx" "$gy" "$nz")
  read -r cups sent pred <<< "$(run "$r" "$c" "$((2 * px))x$((2 * py))")"
  [ -n "$wbase" ] || wbase=$cups
  row "$r" "${gx}x${gy}x${nz}" "$((2 * px))x$((2 * py))" "$cups" "$wbase" "$r" "$sent" "$pred"
done
