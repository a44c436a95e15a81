#!/usr/bin/env bash
# Simulated against measured on a GPU machine (issue 46), in two halves of one script:
#   bundle/tools/sim_validate_gpu.sh measure OUT [STEPS]     on the GPU machine (the bundle of tools/build_gpu.sh)
#   tools/sim_validate_gpu.sh simulate OUT [STEPS]           here, with the SimGrid build (docs/lab.md)
# measure: a fresh StarPU home, calibrated on ONE GPU (benchmark.toml at 1x1, 2x2, 4x4, 1x2, 1x4,
# two 150-step runs each, dmda), then every point measured: 1 GPU at 1x1 / 2x2 / 4x4, 2 GPUs at 1x2,
# 4 GPUs (where the machine has them) at 1x4, in one process and (points "2r", "4r") as one rank a
# GPU (mpirun: their halos GPU to GPU by CUDA IPC), each under dmda, dmdas and eager, STEPS steps
# (default 300: a run's one-time costs, such as the 7-10 ms one watch_velocity task takes at a run's
# last watchdog measure under dmdas, weigh 3% in the 0.34 s of a 100-step run at one GPU 4x4 and
# made dmdas "lose" there by 3-6%; over 300 steps the three policies lie within 2%; traces in
# docs/lab.md); writes OUT/measured.txt and the home (OUT/home.tgz: bus figures, SimGrid
# platform, the histories of the one-GPU calibration, saved before any measured run).
# simulate: the same points on the simulated machine of that home (host "gpuhost", every GPU a
# copy of GPU 0: STARPU_PERF_MODEL_HOMOGENEOUS_CUDA), each twice, `--sim-task-gap` GAP (default 15
# us) and `--sim-launch-latency` LAUNCH (default 15 us), and prints simulated against measured
# (tools/sim_compare.py: the measured median and range, the ranking of the policies, whether the two
# simulations agree to the last digit; POOL="A/measured.txt ..." adds other measurements of the
# same points to the noise). Rank points take the SMPI build (tools/sim_nodes.sh, its ranks on one
# node: RANKS_PER_NODE).
# One worker (stream) a GPU on both sides: the simulation runs a worker's tasks one after another,
# so it cannot play several streams sharing a GPU's SMs.
set -uo pipefail
mode=${1:?usage: sim_validate_gpu.sh measure|simulate OUT [STEPS]}
out=${2:?usage: sim_validate_gpu.sh measure|simulate OUT [STEPS]}
steps=${3:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
export STARPU_SILENT=1 STARPU_NCPU=0 STARPU_NWORKER_PER_CUDA=1 STARPU_HOSTNAME=gpuhost
policies="dmda dmdas eager"
# The points: GPUS:LAYOUT, GPUS ending in r: as many ranks of one GPU each.
points="1:1x1 1:2x2 1:4x4 2:1x2 4:1x4 2r:1x2 4r:1x4"
rate() { sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p' | head -1; }
mkdir -p "$out"

if [ "$mode" = measure ]; then
  export LD_LIBRARY_PATH=$here/lib:${LD_LIBRARY_PATH:-}
  for f in "$here"/bin/*.gz; do if [ -e "$f" ]; then gunzip -f "$f"; fi; done
  bin=$here/bin/ondes3d case_file=$here/inputs/benchmark.toml
  gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
  mpirun="mpirun --oversubscribe --bind-to none"
  [ "$(id -u)" != 0 ] || mpirun="$mpirun --allow-run-as-root"
  export OMPI_MCA_btl_vader_single_copy_mechanism=cma
  export STARPU_HOME=$out/home
  rm -rf "$STARPU_HOME"
  # 150 steps a run: the histories keep every sample, a run's first steps' too, while the measured
  # rate counts from the 11th step. With 40 steps the one-block step's history said 2.87 ms with a
  # deviation of 1.12 ms (a few samples far above: the first steps, most likely) where the steady
  # step took 2.73 ms (four H200s, 2026-11-27: 1x1 simulated at 0.93-0.94 of the measured rate).
  for b in 1x1 2x2 4x4 1x2 1x4; do
    for _ in 1 2; do
      STARPU_NCUDA=1 STARPU_CALIBRATE=1 "$bin" run "$case_file" --blocks "$b" --sched dmda --steps 150 \
        --output /tmp/simv.h5 >> "$out/calibration.log" 2>&1
    done
  done
  # The home as the one-GPU calibration left it: a measured run adds its own samples to the histories.
  tar -C "$out" -czf "$out/home.tgz" home
  # REPEAT measured runs a point (default 3), in turns over the points; a line a point and policy:
  # "POINT POLICY measured RATE...", POINT as GPUS:LAYOUT.
  declare -A measured
  for _ in $(seq "${REPEAT:-3}"); do
    for p in $points; do
      g=${p%%:*} b=${p#*:}
      [ "${g%r}" -le "$gpus" ] || continue
      # Every run under a timeout: a stalled run fails its point instead of holding the machine.
      launch=(timeout 300 env STARPU_NCUDA="$g")
      [ "$g" = "${g%r}" ] || launch=(timeout 300 $mpirun -np "${g%r}" env STARPU_NCUDA=1)
      # Chained windows off (--tune chain_steps=0): the GPUs order their halos themselves there, outside
      # StarPU's task graph, which the simulation plays (its builds never chain); the scheduler has
      # one task a block and window left to place, so the policies would not be compared either.
      for s in $policies; do
        r=$(STARPU_CALIBRATE=0 "${launch[@]}" "$bin" run "$case_file" --blocks "$b" --sched "$s" --steps "$steps" \
          --tune=chain_steps=0 --output /tmp/simv.h5 2>&1 | tee -a "$out/measured.log" | rate)
        measured[$p $s]+=" ${r:-failed}"
      done
    done
  done
  {
    echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $gpus GPUs; benchmark.toml, $steps steps; calibrated on 1 GPU"
    for p in $points; do
      for s in $policies; do [ -z "${measured[$p $s]:-}" ] || echo "$p $s measured${measured[$p $s]}"; done
    done
  } > "$out/measured.txt"
  rm -rf "$out/home"
  cat "$out/measured.txt"
  exit 0
fi

[ "$mode" = simulate ] || { echo "mode: measure or simulate" >&2; exit 2; }
home=$(mktemp -d)
tar -C "$home" -xzf "$out/home.tgz"
head -1 "$out/measured.txt"
rates=$home/rates.txt
cp "$out/measured.txt" "$rates"  # its header names the steps (sim_compare.py pools only alike)
while read -r p s _; do
  g=${p%%:*} b=${p#*:}
  line="$p $s simulated"
  # G GPUs in one process (the SimGrid build), or "Gr": G ranks of one GPU on one node (SMPI).
  per_node=1 gpus=$g
  [ "$g" = "${g%r}" ] || per_node=${g%r} gpus=1
  for _ in 1 2; do
    RANKS_PER_NODE=$per_node "$here/tools/sim_nodes.sh" "$home/home" gpuhost 1 "$gpus" "$here/inputs/benchmark.toml" \
      --blocks "$b" --sched "$s" --steps "$steps" --output /tmp/simv.h5 --summary "$home/s.csv" > "$home/s.log" 2>&1 ||
      rm -f "$home/s.csv"
    line+=" $(tail -1 "$home/s.csv" 2>/dev/null | cut -d, -f16)"
    rm -f "$home/s.csv"
  done
  echo "$line"
done < <(grep -v '^#' "$out/measured.txt") >> "$rates"
# POOL: measured.txt files of other runs of the same points (other sessions, machines of the same
# kind, the same steps), whose runs join this one's: the noise a ranking must clear is then what a
# point moved over all of them.
python3 "$here/tools/sim_compare.py" "$rates" ${POOL:-}
rm -rf "$home"
