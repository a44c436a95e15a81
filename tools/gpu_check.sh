#!/usr/bin/env bash
# Runs on the GPU machine, from the bundle made by tools/build_gpu.sh: the GPU correctness checks,
# then the benchmark, writing gpu_table.txt and gpu_check.log into OUTDIR.
#   bundle/gpu_check.sh OUTDIR [STEPS] [PARTS]     PARTS: any of correctness benchmark mpi robust
#                                                  mpi-checkpoint sweep-gpu sweep-hybrid hybrid
#                                                  seismo tune ncu scaling
#                                                  (attenuation's cost: bench/harness.sh q_cost)
#                                                  (default "correctness benchmark")
# StarPU's performance models start empty on a fresh machine: each configuration gets a
# calibration run (STARPU_CALIBRATE=1) before the measured one.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: gpu_check.sh OUTDIR [STEPS]}
steps=${2:-300}
parts=" ${3:-correctness benchmark} "
mkdir -p "$out"
export LD_LIBRARY_PATH=$here/lib:${LD_LIBRARY_PATH:-}
export STARPU_HOME=${STARPU_HOME:-/tmp/ondes-starpu-home} STARPU_SILENT=1
# A run in which no task ends for 2 minutes while tasks are pending aborts with StarPU's watchdog
# message instead of holding the machine until its timeout (two stalled device calls on 2026-11-27).
export STARPU_WATCHDOG_TIMEOUT=${STARPU_WATCHDOG_TIMEOUT:-120000000} STARPU_WATCHDOG_CRASH=${STARPU_WATCHDOG_CRASH:-1}
bin=$here/bin
# tools/build_gpu.sh ships the programs gzipped (the device tool's 64 MiB limit): unpack them once.
for f in "$bin"/*.gz; do if [ -e "$f" ]; then gunzip -f "$f"; fi; done
case_file=$here/inputs/benchmark.toml
log=$out/gpu_check.log
table=$out/gpu_table.txt
: > "$log"
say() { echo "$@" | tee -a "$log"; }
section() { say ""; say "=== $*"; }

section "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >> "$log" 2>&1
"$bin/ondes3d" info >> "$log" 2>&1
copy=$("$bin/copy_bandwidth" 2>&1 | tee -a "$log")
copy_gbs=$(echo "$copy" | sed -n 's/.*copy bandwidth \([0-9.]*\) GB\/s.*/\1/p')

gpus() { nvidia-smi --query-gpu=name --format=csv,noheader | wc -l; }
# CPU workers beside one GPU in the CPU + GPU rows: every core but the GPU's driver thread's.
ncpu=$(( $(nproc) - 1 ))
# For the MPI parts: $mpirun, and /tmp/ondes_rank_gpu.sh, through which each rank takes the GPU of
# its local rank (modulo the GPUs present: with fewer GPUs than ranks, they share; the program does
# the same by itself, engine/runtime.cpp share_node_gpus). The ranks of one node exchange their halos
# GPU to GPU (CUDA IPC); what goes through Open MPI's shared memory takes a single copy (CMA) where the
# machine allows it, rather than copy-in/copy-out (4 ranks at 1x4+16 on 4 H200s: 35.5 against
# 18-25 G cell-updates/s, 6bb2ab2:bench/results/gpu_h200x2_edges_apart.txt); ONDES_MPI_SINGLE_COPY=none
# keeps copy-in/copy-out.
mpi_setup() {
  export OMPI_MCA_btl_vader_single_copy_mechanism=${ONDES_MPI_SINGLE_COPY:-cma}
  mpirun="mpirun --oversubscribe --bind-to none"
  [ "$(id -u)" != 0 ] || mpirun="$mpirun --allow-run-as-root"
  say "MPI: Open MPI shared memory single copy = $OMPI_MCA_btl_vader_single_copy_mechanism"
  cat > /tmp/ondes_rank_gpu.sh <<'SH'
#!/bin/sh
n=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
export STARPU_WORKERS_CUDAID=$(( ${OMPI_COMM_WORLD_LOCAL_RANK:-0} % n ))
exec "$@"
SH
  chmod +x /tmp/ondes_rank_gpu.sh
}

status=0
check() {  # ENV... PROGRAM
  say "--- $*"
  env "$@" >> "$log" 2>&1 || status=1
}

if [[ $parts == *" mpi "* ]]; then
  section "StarPU-MPI ranks on CUDA workers vs one CPU-only process"
  mpi_setup
  small=$here/inputs/small_homogeneous.toml
  check STARPU_NCUDA=0 "$bin/ondes3d" run "$small" --blocks 2x2 --output /tmp/cpu_ref.h5
  # Ranks of one node pass halos GPU to GPU (CUDA IPC, tasks/ipc_halos.hpp): each run must say so,
  # and its seismograms must be the CPU run's; the ranks pick their GPUs themselves (no wrapper).
  for np in 2 4; do
    STARPU_NCPU=0 $mpirun -np $np "$bin/ondes3d" run "$small" --blocks 2x2 --output /tmp/mpi_$np.h5 > /tmp/mpi_$np.log 2>&1 ||
      status=1
    cat /tmp/mpi_$np.log >> "$log"
    grep -q "GPU to GPU (CUDA IPC" /tmp/mpi_$np.log || { say "--- $np ranks: halos did not go GPU to GPU"; status=1; }
    # Four ranks of one block each chain their steps through CUDA IPC channels (tasks/chain.hpp).
    [ "$np" != 4 ] || grep -q "blocks run up to" /tmp/mpi_$np.log || { say "--- $np ranks: steps not chained"; status=1; }
    say "--- compare CPU-only 1 process vs CUDA-only $np ranks (2x2 blocks, 3 stations on rank boundaries, IPC halos, chained at 4): bitwise"
    "$bin/ondes3d" compare /tmp/cpu_ref.h5 /tmp/mpi_$np.h5 2>&1 | tee -a "$log" || status=1
  done
  big=$here/inputs/benchmark.toml
  # mrow LABEL RANKS BLOCKS ENV...: a calibration run, then the measured one.
  mrow() {
    local label=$1 np=$2 blocks=$3; shift 3
    env "$@" STARPU_CALIBRATE=1 $mpirun -np "$np" /tmp/ondes_rank_gpu.sh "$bin/ondes3d" run "$big" --steps 40 \
      --blocks "$blocks" --sched dmda --output /tmp/cal.h5 >> "$log" 2>&1
    say "--- $label: $np rank(s), blocks $blocks, $*"
    env "$@" $mpirun -np "$np" /tmp/ondes_rank_gpu.sh "$bin/ondes3d" run "$big" --steps "$steps" --blocks "$blocks" \
      --sched dmda --output /tmp/run.h5 2>&1 | grep -E "done in|sends" | tee -a "$log"
  }
  mrow "one GPU per rank" 1 1x1 STARPU_NCPU=0 STARPU_NCUDA=1
  mrow "one GPU per rank" 2 2x1 STARPU_NCPU=0 STARPU_NCUDA=1
  say "--- reference without MPI: one process, both GPUs, blocks 2x1"
  STARPU_NCPU=0 STARPU_NCUDA=2 "$bin/ondes3d" run "$big" --steps 40 --blocks 2x1 --sched dmda --output /tmp/cal.h5 \
    > /dev/null 2>&1
  STARPU_NCPU=0 STARPU_NCUDA=2 "$bin/ondes3d" run "$big" --steps "$steps" --blocks 2x1 --sched dmda \
    --output /tmp/run.h5 2>&1 | grep -E "done in" | tee -a "$log"
  say "mpi status: $status (0 = all passed)"
fi

# Scaling over every GPU of the machine (issue 16), in one table: granularity on one GPU (1x1,
# 2x2, 4x4), strong scaling on benchmark.toml with G GPUs in one process and with G ranks of one
# GPU each (best of a few layouts), and weak scaling (G times the grid along y on G GPUs, both
# ways). Speed-up: against the best 1-GPU layout; weak efficiency: rate / (G x the 1-GPU rate of
# the same per-GPU grid). Any GPU count; the rank rows need mpirun. SCALING_GPUS (default: all,
# then every smaller count down to 2) narrows it.
if [[ $parts == *" scaling "* ]]; then
  source "$here/gpu_scaling.sh"
fi

# Issue 19 on the GPU machine: ranks on CUDA workers write a checkpoint (rank 0 gathers the
# blocks), one CPU-only process restarts from it with another layout: bitwise the uninterrupted
# CPU run. Each rank takes GPU (local rank modulo the GPUs present), so with one GPU they share it.
if [[ $parts == *" mpi-checkpoint "* ]]; then
  section "checkpoint by CUDA ranks, restart by one CPU-only process"
  mpi_setup
  small=$here/inputs/small_homogeneous.toml
  check STARPU_NCUDA=0 "$bin/ondes3d" run "$small" --blocks 2x2 --output /tmp/cpu_ref.h5
  rm -f /tmp/mpi_ck.h5
  check STARPU_NCPU=0 STARPU_NCUDA=1 $mpirun -np 2 /tmp/ondes_rank_gpu.sh "$bin/ondes3d" run "$small" --blocks 2x2 \
    --checkpoint-every 100 --checkpoint /tmp/mpi_ck.h5 --output /tmp/mpi_cuda.h5
  check STARPU_NCUDA=0 "$bin/ondes3d" run "$small" --blocks 3x1 --restart /tmp/mpi_ck.h5 --output /tmp/cpu_restarted.h5
  say "--- CPU-only uninterrupted vs 2 CUDA ranks' checkpoint (iteration 200) restarted by 1 CPU-only process, 3x1"
  "$bin/ondes3d" compare /tmp/cpu_ref.h5 /tmp/cpu_restarted.h5 2>&1 | tail -1 | tee -a "$log" || status=1
  say "mpi-checkpoint status: $status (0 = all passed)"
fi

if [[ $parts == *" robust "* ]]; then
  section "watchdog and checkpoint/restart on CUDA workers"
  small=$here/inputs/small_homogeneous.toml
  check STARPU_NCUDA=0 "$bin/ondes3d" run "$small" --blocks 2x2 --output /tmp/cpu_ref.h5
  check STARPU_NCPU=0 "$bin/ondes3d" run "$small" --blocks 2x2 --checkpoint-every 100 --checkpoint /tmp/ck.h5 \
    --output /tmp/gpu_ck.h5
  check STARPU_NCPU=0 "$bin/ondes3d" run "$small" --blocks 3x1 --restart /tmp/ck.h5 --output /tmp/gpu_re.h5
  say "--- CPU-only uninterrupted vs CUDA-only restarted from iteration 200 with another layout"
  "$bin/ondes3d" compare /tmp/cpu_ref.h5 /tmp/gpu_re.h5 2>&1 | tee -a "$log" || status=1
  check STARPU_NCPU=0 "$bin/test_robust" --gtest_filter='Robust.Watchdog*'
  grep -E "watchdog stopped|OK|FAILED" "$log" | tail -4
  say "--- cost of the watchdog on the GPU (benchmark.toml, 1 GPU, 1x1; every N iterations)"
  big=$here/inputs/benchmark.toml
  STARPU_NCPU=0 STARPU_CALIBRATE=1 "$bin/ondes3d" run "$big" --steps 40 --watchdog-every 1 --output /tmp/cal.h5 >> "$log" 2>&1
  for every in 0 50 1; do
    l=$(STARPU_NCPU=0 "$bin/ondes3d" run "$big" --steps "$steps" --watchdog-every $every --output /tmp/run.h5 2>&1 |
        grep "done in")
    say "watchdog every $every: $l"
  done
  say "robust status: $status (0 = all passed)"
fi


# The scheduler laboratory (tools/sweep.py): policies x layouts on GPU-only and CPU+GPU workers,
# one worker configuration per part so that each fits in one call; SWEEP_POLICIES / SWEEP_BLOCKS
# narrow it.
sweep() {  # NAME WORKERS
  section "sweep $1: workers $2, inputs/sweep_gpu.toml"
  python3 "$here/tools/sweep.py" "$here/inputs/sweep_gpu.toml" --bin "$bin/ondes3d" --out "$out/$1" \
    --workers "${2//NCPU/$ncpu}" --blocks ${SWEEP_BLOCKS:-1x1 2x2 4x4 6x6 8x8} \
    --schedulers ${SWEEP_POLICIES:-eager lws ws dm dmda dmdas} --repeat 2 --timeout 120 \
    ${SWEEP_STEPS:+--steps $SWEEP_STEPS} 2>&1 | tee -a "$log" || status=1
  rm -rf "$out/$1/starpu-home"
}
[[ $parts != *" sweep-gpu "* ]] || sweep sweep_gpu cuda:1
[[ $parts != *" sweep-hybrid "* ]] || sweep sweep_hybrid cpu:NCPU+cuda:1

# Best CPU+GPU configuration against GPU-only on the benchmark case.
if [[ $parts == *" hybrid "* ]]; then
  section "CPU+GPU against GPU-only, $(basename "$case_file"), $steps steps"
  hrow() {  # LABEL BLOCKS SCHED EXTRA-ARGS ENV...: a short calibration run, then two measured ones
    local label=$1 blocks=$2 sched=$3 extra=$4; shift 4
    env "$@" STARPU_CALIBRATE=1 "$bin/ondes3d" run "$case_file" --steps 12 --blocks "$blocks" --sched "$sched" \
      $extra --output /tmp/cal.h5 >> "$log" 2>&1
    for rep in 1 2; do
      env "$@" "$bin/ondes3d" run "$case_file" --steps "$steps" --blocks "$blocks" --sched "$sched" $extra \
        --output /tmp/run.h5 --summary "$out/hybrid_${label}_${blocks}_${sched}_${rep}.csv" 2>&1 |
        grep -E "done in|profile" | sed "s/^/$label $blocks $sched #$rep: /" | tee -a "$log"
    done
  }
  for b in ${HYBRID_BLOCKS:-1x1 2x2}; do
    hrow gpuonly "$b" dmda "" STARPU_NCPU=0 STARPU_NCUDA=1
    for s in ${HYBRID_POLICIES:-dmda dmdas}; do hrow "cpu${ncpu}gpu" "$b" "$s" "" STARPU_NCPU=$ncpu STARPU_NCUDA=1; done
  done
  # The same with the small tasks left to the scheduler (run.small_tasks = "any").
  hrow "cpu${ncpu}gpu_anysmall" 1x1 dmda "--small-tasks any" STARPU_NCPU=$ncpu STARPU_NCUDA=1
fi

if [[ $parts == *" seismo "* ]]; then
  section "seismology cases on the GPU (CUDA workers only)"
  check "$bin/test_gpu" --gtest_filter='Gpu.FiniteFault*:Gpu.Snapshots*'
  grep -E "relative L2" "$log" | tail -8 | sed 's/^/  /'
  seis=/tmp/seismo && rm -rf $seis && mkdir -p $seis
  timed() {  # LABEL ARGS...: one GPU-only run, its summary line in the log
    local label=$1; shift
    say "--- $label"
    STARPU_NCPU=0 "$bin/ondes3d" run "$@" > $seis/$label.log 2>&1 || status=1
    grep -E "cells, .* steps|done in|snapshots in|profile:" $seis/$label.log | sed 's/^/  /' | tee -a "$log"
  }
  # LOH.1 at h = 200, 100, 50 and 25 m (the h = 50 run also keeps surface snapshots every second).
  timed loh1_h200 "$here/inputs/loh1/loh1_h200.toml" --blocks 1x1 --output $seis/loh1_h200.h5
  timed loh1_h100 "$here/inputs/loh1/loh1_h100.toml" --blocks 1x1 --output $seis/loh1_h100.h5
  cp "$here/inputs/loh1/loh1_h50.toml" $seis/loh1_h50_snap.toml
  printf '\n[snapshots]\nevery = 250\nplanes = ["z=0"]\n' >> $seis/loh1_h50_snap.toml
  timed loh1_h50 $seis/loh1_h50_snap.toml --output $seis/loh1_h50.h5
  timed loh1_h25 "$here/inputs/loh1/loh1_h25.toml" --output $seis/loh1_h25.h5
  # The finite fault (1250 point sources), one block and 2x2, without its snapshots.
  sed '/^\[snapshots\]/,/^$/d; /^planes/d' "$here/inputs/finite_fault/finite_fault.toml" > "$here/inputs/finite_fault/gpu.toml"
  timed fault_1x1 "$here/inputs/finite_fault/gpu.toml" --blocks 1x1 --output $seis/fault_1x1.h5
  timed fault_2x2 "$here/inputs/finite_fault/gpu.toml" --blocks 2x2 --output $seis/fault_2x2.h5
  (cd $seis && tar czf "$out/seismo.tgz" *.h5 *.log)
  ls -la "$out" | tee -a "$log"
fi
# The march kernels' launch geometry on the plain loop (the policy's march = TYxKZxB[xR]: tile
# rows, planes per thread block, register bound, band rows; `--tune march=...` for ondes3d run),
# then Nsight Compute's view of the stencil kernels.
if [[ $parts == *" tune "* ]]; then
  section "launch geometry, plain loop, $(basename "$case_file"), $steps steps"
  for m in ${MARCHES:-8x1x4 8x2x4 8x4x4 8x8x4 8x16x4 8x4x3 8x16x3 16x4x2 16x16x2}; do
    l=$("$bin/plain_loop" "$case_file" "$steps" "march=$m" 2>&1 | grep "plain loop")
    say "march $m: $l"
  done
fi
if [[ $parts == *" ncu "* ]] && command -v ncu > /dev/null; then
  section "Nsight Compute: the velocity and stress kernels (plain loop, iteration 11)"
  ncu --kernel-name regex:"velocity_|stress_" --launch-skip 40 --launch-count 4 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --metrics dram__bytes_read.sum,dram__bytes_write.sum \
    "$bin/plain_loop" "$case_file" 30 > "$out/ncu.txt" 2>&1 || say "ncu failed"
  grep -E "_kernel|_cells|_march|Duration|DRAM Throughput|dram__bytes|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Stall|Compute \(SM\)" \
    "$out/ncu.txt" | tee -a "$log"
fi
[[ $parts == *" correctness "* ]] || [[ $parts == *" benchmark "* ]] || exit $status
if [[ $parts == *" correctness "* ]]; then
section "correctness"
check "$bin/test_gpu"
for t in test_analytic test_anelastic; do check ONDES_TEST_WORKERS=cuda "$bin/$t"; done
grep -E "relative L2|misfit|surface vz|PASSED|FAILED|SKIPPED" "$log" | sed 's/^/  /' | tail -40
say "correctness status: $status (0 = all passed)"
fi
[[ $parts == *" benchmark "* ]] || exit $status

section "benchmark ($steps steps of $(basename "$case_file"))"
# row LABEL ENV... -- ARGS: a calibration run, then the measured one, as one table row.
cups_of() { sed -n 's/.*done in \([0-9.]*\) s: \([0-9.e+]*\) cell-updates\/s, \([0-9]*\) tasks.*/\2 \3/p'; }
row() {
  local label=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" STARPU_CALIBRATE=1 "$bin/ondes3d" run "$case_file" --steps 40 --output /tmp/cal.h5 "$@" >> "$log" 2>&1
  local l
  l=$(env "${envs[@]}" "$bin/ondes3d" run "$case_file" --steps "$steps" --output /tmp/run.h5 "$@" 2>&1 | tee -a "$log")
  read -r cups tasks <<< "$(echo "$l" | cups_of)"
  printf '%-34s %14.4g %8s\n' "$label" "$cups" "$tasks" | tee -a "$table"
}
: > "$table"
{
  echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); copy bandwidth ${copy_gbs} GB/s"
  echo "# $(basename "$case_file") 512x512x256, $steps steps; each StarPU row after a STARPU_CALIBRATE=1 run of 40 steps; throughput after 10 warm-up iterations"
  printf '%-34s %14s %8s\n' configuration cell_updates/s tasks/it
} | tee "$table"
plain=$("$bin/plain_loop" "$case_file" "$steps" 2>&1 | tee -a "$log") || say "plain loop failed: $plain"
plain_cups=$(echo "$plain" | sed -n 's/.*in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p')
printf '%-34s %14.4g %8s\n' "plain loop (no runtime), 1 GPU" "$plain_cups" "-" | tee -a "$table"
for b in 1x1 2x2 4x4; do
  row "StarPU dmda, 1 GPU only, $b" STARPU_NCPU=0 STARPU_NCUDA=1 -- --blocks "$b" --sched dmda
done
# Several workers (streams) per GPU let small blocks' kernels overlap.
row "StarPU dmda, 1 GPU x4 streams, 4x4" STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=4 -- --blocks 4x4 --sched dmda
ngpu=$(gpus)
if [ "$ngpu" -ge 2 ]; then
  for b in 2x1 4x4; do
    row "StarPU dmda, 2 GPUs only, $b" STARPU_NCPU=0 STARPU_NCUDA=2 -- --blocks "$b" --sched dmda
  done
  row "StarPU dmda, 2 GPUs x4 streams, 4x4" STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_NWORKER_PER_CUDA=4 -- --blocks 4x4 --sched dmda
fi
# Heterogeneous: CPU workers beside the GPU must never make a layout slower than the GPU alone.
for b in 1x1 2x2 4x4; do
  for s in dmda dmdas; do
    row "StarPU $s, 1 GPU + CPUs, $b" STARPU_NCUDA=1 -- --blocks "$b" --sched "$s"
  done
done
bytes=120  # the floor per cell-update: velocity 13 floats, stress 17 (each field read once, written once; rho, lam, 1/mu)
echo "# floor: $bytes B per cell-update at the copy bandwidth = $(awk -v b=$bytes -v c="$copy_gbs" 'BEGIN{printf "%.4g", c*1e9/b}') cell-updates/s; % of floor = throughput x $bytes B / copy bandwidth" | tee -a "$table"
awk -v b=$bytes -v c="$copy_gbs" 'NR>3 && $0 !~ /^#/ {v=$(NF-1); printf "#   %-32s %6.1f%% of the floor\n", substr($0,1,32), 100*v*b/(c*1e9)}' "$table" | tee -a "$table.tmp"
cat "$table.tmp" >> "$table"; rm -f "$table.tmp"
exit $status
