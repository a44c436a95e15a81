#!/bin/bash
# Final build (FastDiv in core/): test_gpu with the default and bands of 7 rows, plain loop default.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib STARPU_SILENT=1 STARPU_HOME=/tmp/ondes-starpu-home
o=${1:?out}; mkdir -p $o
for f in bin/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
nvidia-smi --query-gpu=name --format=csv,noheader
for m in default 8x0x4x7; do mm=$m; [ $m = default ] && mm=""
  ONDES_CUDA_MARCH=$mm timeout 200 bin/test_gpu > $o/test_gpu_$m.log 2>&1; echo "test_gpu $m rc=$? $(grep -cE '^\[       OK' $o/test_gpu_$m.log) ok, $(grep -cE 'FAILED  \]' $o/test_gpu_$m.log) failed"
done
for rep in 1 2; do echo "plain default #$rep: $(bin/plain_loop inputs/benchmark.toml 300 2>&1 | grep -o 'in .*per step')"; done
