#!/usr/bin/env bash
# Simulated against measured on a GPU machine (issue 46), in two halves of one script:
#   bundle/tools/sim_validate_gpu.sh measure OUT [STEPS]     on the GPU machine (the bundle of tools/build_gpu.sh)
#   tools/sim_validate_gpu.sh simulate OUT [STEPS]           here, with the SimGrid build (docs/lab.md)
# measure: a fresh StarPU home, calibrated on ONE GPU (benchmark.toml at 1x1, 2x2, 4x4, 1x2, 1x4,
# two 40-step runs each, dmda), then every point measured: 1 GPU at 1x1 / 2x2 / 4x4, 2 GPUs at 1x2,
# 4 GPUs (where the machine has them) at 1x4, one process, each under dmda, dmdas and eager, STEPS
# steps (default 100); writes OUT/measured.txt and the home (OUT/home.tgz: bus figures, SimGrid
# platform, the histories of the one-GPU calibration, saved before any measured run).
# simulate: the same points on the simulated machine of that home (host "gpuhost", every GPU a
# copy of GPU 0: STARPU_PERF_MODEL_HOMOGENEOUS_CUDA), each twice, `--sim-task-gap` GAP (default 15
# us), and prints simulated against measured, the ranking of the policies at each point, and
# whether the two simulations agree to the last digit.
# One worker (stream) a GPU on both sides: the simulation runs a worker's tasks one after another,
# so it cannot play several streams sharing a GPU's SMs.
set -uo pipefail
mode=${1:?usage: sim_validate_gpu.sh measure|simulate OUT [STEPS]}
out=${2:?usage: sim_validate_gpu.sh measure|simulate OUT [STEPS]}
steps=${3:-100}
here=$(cd "$(dirname "$0")/.." && pwd)
export STARPU_SILENT=1 STARPU_NCPU=0 STARPU_NWORKER_PER_CUDA=1 STARPU_HOSTNAME=gpuhost
policies="dmda dmdas eager"
# The points: GPUS:LAYOUT.
points="1:1x1 1:2x2 1:4x4 2:1x2 4:1x4"
rate() { sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p' | head -1; }
mkdir -p "$out"

if [ "$mode" = measure ]; then
  export LD_LIBRARY_PATH=$here/lib:${LD_LIBRARY_PATH:-}
  for f in "$here"/bin/*.gz; do if [ -e "$f" ]; then gunzip -f "$f"; fi; done
  bin=$here/bin/ondes3d case_file=$here/inputs/benchmark.toml
  gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
  export STARPU_HOME=$out/home
  rm -rf "$STARPU_HOME"
  for b in 1x1 2x2 4x4 1x2 1x4; do
    for _ in 1 2; do
      STARPU_NCUDA=1 STARPU_CALIBRATE=1 "$bin" run "$case_file" --blocks "$b" --sched dmda --steps 40 \
        --output /tmp/simv.h5 >> "$out/calibration.log" 2>&1
    done
  done
  # The home as the one-GPU calibration left it: a measured run adds its own samples to the histories.
  tar -C "$out" -czf "$out/home.tgz" home
  {
    echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $gpus GPUs; benchmark.toml, $steps steps; calibrated on 1 GPU"
    for p in $points; do
      g=${p%%:*} b=${p#*:}
      [ "$g" -le "$gpus" ] || continue
      for s in $policies; do
        r=$(STARPU_NCUDA=$g STARPU_CALIBRATE=0 "$bin" run "$case_file" --blocks "$b" --sched "$s" --steps "$steps" \
          --output /tmp/simv.h5 2>&1 | tee -a "$out/measured.log" | rate)
        echo "$g $b $s ${r:-failed}"
      done
    done
  } > "$out/measured.txt"
  rm -rf "$out/home"
  cat "$out/measured.txt"
  exit 0
fi

[ "$mode" = simulate ] || { echo "mode: measure or simulate" >&2; exit 2; }
sim=${SIM:-$here/build-sim/project/ondes3d}
home=$(mktemp -d)
tar -C "$home" -xzf "$out/home.tgz"
export STARPU_HOME=$home/home STARPU_CALIBRATE=0 STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1
head -1 "$out/measured.txt"
printf '%-5s %-7s %-7s %12s %12s %9s %s\n' gpus layout policy measured simulated sim/meas "second simulation"
declare -A meas simr
while read -r g b s m; do
  [[ $g == \#* ]] && continue
  for k in 1 2; do
    STARPU_NCUDA=$g "$sim" run "$here/inputs/benchmark.toml" --blocks "$b" --sched "$s" --steps "$steps" \
      --sim-task-gap "${GAP:-15}" --output /tmp/simv.h5 --summary "$home/s$k.csv" > "$home/s$k.log" 2>&1 || rm -f "$home/s$k.csv"
  done
  s1=$(tail -1 "$home/s1.csv" 2>/dev/null | cut -d, -f16) s2=$(tail -1 "$home/s2.csv" 2>/dev/null | cut -d, -f16)
  rm -f "$home"/s?.csv
  meas[$g$b$s]=$m simr[$g$b$s]=${s1:-0}
  printf '%-5s %-7s %-7s %12s %12s %9s %s\n' "$g" "$b" "$s" "$m" "${s1:-failed}" \
    "$(awk -v a="${s1:-0}" -v b="$m" 'BEGIN{ if (b > 0) printf "%.3f", a / b; else print "-" }')" \
    "$([ -n "$s1" ] && [ "$s1" = "$s2" ] && echo identical || echo "differs: ${s2:-failed}")"
done < "$out/measured.txt"
# The policies' ranking at each point: measured and simulated, best first; "noise" where the
# measured rates lie within 2% (one run each: what the repeated runs of this machine vary by).
echo "# ranking of the policies (best first), measured | simulated"
for p in $points; do
  g=${p%%:*} b=${p#*:}
  [ -n "${meas[$g$b${policies%% *}]:-}" ] || continue
  rank() { for s in $policies; do echo "$(eval echo "\${$1[$g$b$s]}") $s"; done | sort -gr | awk '{printf "%s ", $2}'; }
  spread=$(for s in $policies; do echo "${meas[$g$b$s]}"; done | sort -g | awk 'NR==1{lo=$1} END{ if (lo > 0) printf "%.3f", $1 / lo }')
  printf '%s GPU %-5s %s| %s(measured spread %s)\n' "$g" "$b" "$(rank meas)" "$(rank simr)" "$spread"
done
rm -rf "$home"
