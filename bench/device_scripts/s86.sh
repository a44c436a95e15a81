#!/bin/bash
# The saving marches' edges from registers (march.hpp save_edges_of) against HEAD (old/): the
# granularity probe alternated, 4x4 (its bitwise check: x ghosts from buffers vs copied), then 2x2.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
for rep in 1 2; do for b in old bin; do
  echo "== $b 4x4 #$rep"; $b/granularity_probe 512 512 256 100 4 4 2>&1 | tee $o/${b}_44_$rep.txt | grep -vE "^device"
done; done
for b in old bin; do echo "== $b 2x2"; $b/granularity_probe 512 512 256 100 2 2 2>&1 | grep -vE "^device"; done
