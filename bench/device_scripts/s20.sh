#!/bin/bash
# Tiles staged only where read (march.hpp Reach, loads predicated by a per-thread mask) against
# whole tiles (ONDES_CUDA_STAGE=full), the per-GPU band default (queried once a GPU): test_gpu,
# plain loop A/B alternated, ncu of the march kernels, gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
for rep in 1 2; do for st in trimmed full; do for m in default ${MARCHES:-8x0x4x0 8x0x4x32}; do
  mm=$m; [ $m = default ] && mm=""
  echo "plain $st $m #$rep: $(ONDES_CUDA_STAGE=$st ONDES_CUDA_MARCH=$mm bin/plain_loop $big 300 2>&1 | grep -o 'in .*per step')"
done; done; done
met=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
for st in trimmed full; do
  ONDES_CUDA_STAGE=$st timeout 100 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march" --launch-skip 20 --launch-count 2 \
    --metrics $met bin/plain_loop $big 12 > $o/ncu_$st.txt 2>&1
  echo "ncu $st:"; grep -E "  void|__" $o/ncu_$st.txt | sed -E 's/\(StepParams.*//; s/^ +/  /'
done
timeout 300 bash gpu_check.sh $o/check 300 "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
