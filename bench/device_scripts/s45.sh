#!/bin/bash
# Why a 4x4 block's march moves fewer bytes a second than the 1x1 block's (s42: 2.23-2.26 against
# 2.51-2.53 TB/s, ncu): Nsight Compute's speed-of-light, occupancy, memory and warp-state sections
# of a few velocity_march and stress_march launches at 1x1 and 4x4 (StarPU, one CUDA worker).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=1
for l in ${LAYOUTS:-1x1 4x4}; do
  for k in velocity_march stress_march; do
    echo "=== $l $k"
    timeout 200 ncu -k regex:$k --launch-skip $([ $l = 1x1 ] && echo 10 || echo 40) --launch-count $([ $l = 1x1 ] && echo 2 || echo 4) --cache-control none --clock-control none \
      --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section LaunchStats bin/ondes3d run $big --steps 30 --blocks $l --sched dmda --output /tmp/r.h5 \
      > $o/ncu_${l}_$k.txt 2>&1
    grep -E "^  [a-z_]+<|Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|L1/TEX Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit Registers|Warp Cycles Per Issued|Stall|Grid Size|Waves Per SM" $o/ncu_${l}_$k.txt | head -60
  done
done
