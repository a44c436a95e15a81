#!/bin/bash
# Saving/XPatch marches at 4 thread blocks an SM (granularity_probe built three ways: gp_VS, V and S the
# velocity's and stress's saving kernels' blocks an SM: 33 = HEAD, 43 velocity at 4 (no spill, uniform),
# 44 both (stress spills 36 B)), default planes and KZ 4 for all; then HEAD's StarPU (old/) at 4x4
# under each policy against 1x1 dmda, GPU only.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
for rep in 1 2; do for p in 33 43 44; do
  echo "== gp_$p default #$rep"; bin/gp_$p 512 512 256 100 4 4 2>&1 | grep -v "^device"
done; done
for p in 33 43 44; do
  echo "== gp_$p KZ4 (8x4x4)"; ONDES_CUDA_MARCH=8x4x4 bin/gp_$p 512 512 256 100 4 4 2>&1 | grep -v "^device"
done
export STARPU_NCPU=0 STARPU_NCUDA=1
calibrate old/ondes3d 1x1; calibrate old/ondes3d 4x4
for s in dmdas eager lws ws prio; do SCHED=$s calibrate old/ondes3d 4x4; done
for rep in 1 2; do
  echo "1x1 dmda #$rep: $(rate old/ondes3d 1x1)"
  for s in dmda dmdas eager lws ws prio; do echo "4x4 $s #$rep: $(SCHED=$s rate old/ondes3d 4x4)"; done
  echo "4x4 dmda 8 streams #$rep: $(rate old/ondes3d 4x4 STARPU_NWORKER_PER_CUDA=8)"
  echo "4x4 lws 8 streams #$rep: $(SCHED=lws rate old/ondes3d 4x4 STARPU_NWORKER_PER_CUDA=8)"
done
