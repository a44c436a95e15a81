#!/usr/bin/env bash
# A simulated run (issue 46) of NODES nodes, each a copy of a calibrated machine, linked by a network:
# one node of one rank runs the SimGrid build as one process (tools/build_starpu_simgrid.sh, then
# the project with -DONDES_SIMGRID=ON); several ranks run StarPU-MPI under SimGrid's SMPI (the SMPI
# build: tools/build_starpu_simgrid.sh --mpi, then -DONDES_SIMGRID=ON -DONDES_SIMGRID_MPI=ON).
# docs/lab.md "Simulated machines".
#   tools/sim_nodes.sh HOME HOST NODES GPUS CASE [ondes3d run options...]
#   tools/sim_nodes.sh inputs/platforms/h200 h200x8 1 8 inputs/node_4g.toml --blocks 1x8 --steps 60
#   tools/sim_nodes.sh inputs/platforms/h200 h200x4 4 4 inputs/benchmark.toml --blocks 1x16 --steps 100
#   RANKS_PER_NODE=4 tools/sim_nodes.sh inputs/platforms/h200 h200x4 1 1 inputs/benchmark.toml --blocks 1x4
# HOME: a calibrated StarPU home (copied first: StarPU writes in it); HOST: its machine, played by
# every node; GPUS: the GPUs a rank drives (STARPU_NCUDA; GPU workers only, one stream a GPU, every
# GPU costing a block what the calibrated GPU 0 did). RANKS_PER_NODE (default 1): ranks sharing a
# node, each driving GPUS GPUs of its own; halos between them go GPU to GPU as a real run's CUDA
# IPC halos do (tasks/ipc_halos.hpp: a 4-byte token a buffer over MPI), the rest through the node's
# memory: NODE_GBS gigabytes/s (default 20) and NODE_LAT_US microseconds (default 1), SimGrid's
# loopback. The network (SimGrid cluster): NET_GBS gigabytes/s a link (default 25: 200 Gb/s
# InfiniBand HDR), NET_LAT_US microseconds (default 2), a backbone of NODES x NET_GBS. GAP:
# --sim-task-gap (default 15 us); LAUNCH: --sim-launch-latency (default 15 us).
# Environment: SIM (default build-sim/project/ondes3d), SIM_SMPI (default build-sim/smpi/ondes3d.so),
# STARPU_SMPIRUN (default build-sim/starpu-smpi/bin/starpu_smpirun).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: sim_nodes.sh HOME HOST NODES GPUS CASE [ondes3d run options...]"
home=${1:?$usage} host=${2:?$usage} nodes=${3:?$usage} gpus=${4:?$usage} case_file=${5:?$usage}
shift 5
[[ $nodes =~ ^[1-9][0-9]*$ && $gpus =~ ^[1-9][0-9]*$ ]] ||
  { echo "sim_nodes.sh: NODES ($nodes) and GPUS ($gpus) must be positive integers (GPU workers only; CPU machines: tools/sweep.py --simulate)" >&2; exit 2; }
[ -d "$home/.starpu" ] || { echo "sim_nodes.sh: $home holds no .starpu folder (a calibrated StarPU home)" >&2; exit 2; }
per_node=${RANKS_PER_NODE:-1}
ranks=$((nodes * per_node))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$home" "$work/home"
export STARPU_HOME=$work/home STARPU_HOSTNAME=$host STARPU_NCUDA=$gpus STARPU_NCPU=0 STARPU_CALIBRATE=0 \
  STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_NWORKER_PER_CUDA=1 STARPU_SILENT=1
overheads=(--sim-task-gap "${GAP:-15}" --sim-launch-latency "${LAUNCH:-15}")
if [ "$ranks" -eq 1 ]; then
  program=${SIM:-$here/build-sim/project/ondes3d}
  [ -x "$program" ] || { echo "no SimGrid build at $program (docs/lab.md, Simulated machines)" >&2; exit 2; }
  "$program" run "$case_file" "${overheads[@]}" "$@"
  exit 0
fi
program=${SIM_SMPI:-$here/build-sim/smpi/ondes3d.so}
smpirun=${STARPU_SMPIRUN:-$here/build-sim/starpu-smpi/bin/starpu_smpirun}
[ -f "$program" ] || { echo "no SMPI build at $program (docs/lab.md, Simulated machines)" >&2; exit 2; }
gbs=${NET_GBS:-25} lat=${NET_LAT_US:-2}
cat > "$work/cluster.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<AS id="nodes" routing="Full">
  <cluster id="net" prefix="node" suffix="" radical="0-$((nodes - 1))" speed="1Gf"
           bw="${gbs}GBps" lat="${lat}us" bb_bw="$((gbs * nodes))GBps" bb_lat="${lat}us"
           loopback_bw="${NODE_GBS:-20}GBps" loopback_lat="${NODE_LAT_US:-1}us"/>
</AS>
</platform>
XML
for i in $(seq 0 $((nodes - 1))); do for _ in $(seq "$per_node"); do echo "node$i"; done; done > "$work/hostfile"
export ONDES_SIM_RANKS=$ranks ONDES_SIM_RANKS_PER_NODE=$per_node
# Folded memory (the blocks' arrays, never touched) mapped 64 MiB at a time: at SMPI's default of
# 1 MiB a 4.3 G-cell grid needs more maps than Linux allows a process.
"$smpirun" -platform "$work/cluster.xml" -hostfile "$work/hostfile" -np "$ranks" "$program" run "$case_file" \
  "${overheads[@]}" "$@" --cfg=smpi/shared-malloc-blocksize:67108864
