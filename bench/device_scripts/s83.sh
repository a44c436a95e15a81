#!/bin/bash
# Granularity probe with what a block's update does besides its march: edges saved, x ghosts from
# the buffers, ghost copies (bench/granularity_probe.cu), 4x4 and 2x2 against one block.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
bin/granularity_probe 512 512 256 100 4 4 2>&1 | tee $o/gran44.txt
bin/granularity_probe 512 512 256 100 2 2 2>&1 | tee $o/gran22.txt
