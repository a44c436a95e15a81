#!/bin/bash
# s87 again, StarPU only: 4x4 four times and 1x1 twice each way, alternated (old/ = HEAD before the
# edges from registers).
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
STARPU_NCPU=0 STARPU_NCUDA=1 calibrate bin/ondes3d 4x4
for rep in 1 2 3 4; do for b in old bin; do
  echo "$b starpu 4x4 #$rep: $(STARPU_NCPU=0 STARPU_NCUDA=1 rate $b/ondes3d 4x4)"
done; done
for rep in 1 2; do for b in old bin; do
  echo "$b starpu 1x1 #$rep: $(STARPU_NCPU=0 STARPU_NCUDA=1 rate $b/ondes3d 1x1)"
done; done
