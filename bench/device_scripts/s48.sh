#!/bin/bash
# Two GPUs in one process (benchmark.toml, strong scaling, 150 steps): task traces (--trace) and the
# run's profile line (bytes moved between memory nodes) at 1x2 and 1x2 with 16-cell strips, dmda
# and dmdas: where the exchange between the GPUs sits in a step (s47: 1.61-1.72x of one GPU).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STARPU_NCUDA=2 STEPS=150
for l in 1x2 1x2+16; do
  for s in dmda dmdas; do
    calibrate bin/ondes3d $l
    strip=0; [[ $l == *+* ]] && strip=${l#*+}
    bin/ondes3d run $big --steps 150 --blocks ${l%%+*} --edge-strip $strip --sched $s --output /tmp/r.h5 \
      --trace $o/trace2_${l}_$s.csv 2>&1 | grep -E "done in|profile:" | sed "s/^/$l $s: /"
  done
done
