#!/bin/bash
# Blocks as views (bench/views_probe.cu): StarPU tasks over x-y boxes of one array a field kind, the
# neighbours' cells read in place, against one task over the whole grid; then HEAD's granularity probe
# (gp_33) and HEAD's StarPU (old/) at 1x1 and 4x4 for reference. One GPU, 4 streams.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=4
for s in lws eager; do
  echo "== views_probe $s"; STARPU_SCHED=$s timeout 200 bin/views_probe 512 512 256 300 2x2 4x4 8x8 2>&1 | tail -20
done
echo "== views_probe lws, 8 streams"; STARPU_SCHED=lws STARPU_NWORKER_PER_CUDA=8 timeout 120 bin/views_probe 512 512 256 300 4x4 2>&1 | tail -8
echo "== gp_33"; bin/gp_33 512 512 256 300 4 4 2>&1 | tail -9
calibrate old/ondes3d 1x1; calibrate old/ondes3d 4x4
for rep in 1 2; do
  echo "ondes3d 1x1 dmda #$rep: $(rate old/ondes3d 1x1)"
  echo "ondes3d 4x4 dmda #$rep: $(rate old/ondes3d 4x4)"
done
