#!/bin/bash
# L2 sides (codelets/l2_sides.hpp): the probe's report, plain loop A/B alternated
# (ONDES_CUDA_L2SIDES=off against on; default geometry and 8x2x3, where the sided stress march
# does not spill), the march kernels under Nsight Compute each way (time, L2 breakdown with the
# fabric, sectors, instructions), test_gpu, StarPU 1x1 each way.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
pl() { env "$@" bin/plain_loop $big 300 2>&1 | grep -E "plain loop" | grep -o "in .*step"; }
echo "probe: $(bin/plain_loop $big 20 2>&1 | grep 'L2 sides')"
for rep in 1 2; do
  for m in default 8x2x3; do
    mm=""; [ $m != default ] && mm="ONDES_CUDA_MARCH=$m"
    echo "plain $m off #$rep: $(pl $mm ONDES_CUDA_L2SIDES=off)"
    echo "plain $m on  #$rep: $(pl $mm ONDES_CUDA_L2SIDES=on)"
  done
done
met=breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,sm__inst_executed.sum
for x in off on; do
  ONDES_CUDA_L2SIDES=$x timeout 150 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march" \
    --launch-skip 20 --launch-count 2 --metrics $met bin/plain_loop $big 12 > $o/ncu_$x.txt 2>&1
  echo "== ncu $x"; grep -E "^  [a-z].*\(|  void|  [a-z].*__" $o/ncu_$x.txt | sed -E 's/\(StepParams.*\)x/ x/; s/^ +/  /' |
    awk '$NF+0 > 40 || /void|sectors|inst|duration|dram/' | head -40
done
test_gpu_run
calibrate bin/ondes3d 1x1
for rep in 1 2; do for x in off on; do echo "starpu 1x1 $x #$rep: $(rate bin/ondes3d 1x1 ONDES_CUDA_L2SIDES=$x)"; done; done
