#!/bin/bash
# XPatch without its barrier (Staging skips the patched elements): the granularity probe built with
# HEAD's march.hpp (old/) and with the change (bin/), alternated, 4x4 and 2x2; its bitwise check of
# the x ghosts read from the buffers against copied.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
for rep in 1 2; do
  for b in old bin; do
    echo "== $b 4x4 #$rep"; $b/granularity_probe 512 512 256 100 4 4 2>&1 | tee $o/${b}_44_$rep.txt | grep -E "differ|one block|4 stream|equal|FAIL"
  done
done
for b in old bin; do
  echo "== $b 2x2"; $b/granularity_probe 512 512 256 100 2 2 2>&1 | tee $o/${b}_22.txt | grep -E "differ|one block|4 stream|equal|FAIL"
done
