#!/bin/bash
# Granularity probe, the halo machinery's pieces by combination (save, xpatch, copies), at the default
# march geometry and with every march at 3 thread blocks an SM and 4 planes (8x4x3, the saving
# kernels' geometry; refused by the build of that day, see s87.sh). Needs the probe in the bundle:
# ONDES_BUNDLE_PROBES=granularity_probe tools/build_gpu.sh.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
for g in default 8x4x3; do
  echo "== march $g"
  env $([ $g != default ] && echo ONDES_CUDA_MARCH=$g) bin/granularity_probe 512 512 256 100 4 4 2>&1 | tee $o/gran44_$g.txt | grep -vE "^device"
done
